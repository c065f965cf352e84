#pragma once
// The HTML report: one self-contained file (inline CSS and SVG; no scripts, no external
// resources) to open, attach or screenshot. Per pipeline: the headline numbers, a timeline of the
// step with the most avoidable idle, the per-stage breakdown chart and table, the top gaps and
// the what-if table.
#include <ostream>

#include "analyzer/result/result.h"

namespace bubblescope::analysis {

void writeHtmlReport(const AnalysisResult& result, std::ostream& out);

}  // namespace bubblescope::analysis
