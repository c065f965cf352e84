#pragma once
// The utilization of a job with no pipeline in each report format (analysis.md §7): the same
// figures as the pipeline reports' header, then per rank and step the split, the idle by host
// cause, the largest gaps and the slowest rank and step.
#include <ostream>

#include "analyzer/report/json_writer.h"
#include "analyzer/result/result.h"

namespace bubblescope::analysis {

void writeUtilizationJson(const UtilizationResult& u, JsonWriter& out);
void writeUtilizationText(const AnalysisResult& r, std::ostream& out);
void writeUtilizationMarkdown(const AnalysisResult& r, std::ostream& out);
void writeUtilizationHtml(const AnalysisResult& r, std::ostream& out);
void writeUtilizationJunit(const AnalysisResult& r, std::ostream& out);

}  // namespace bubblescope::analysis
