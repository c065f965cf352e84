#pragma once
// The terminal report: readable tables, color when the output is a terminal; with
// ReportStyle::detail, every gap after the summary.
#include <ostream>

#include "analyzer/report/report_style.h"
#include "analyzer/result/result.h"

namespace bubblescope::analysis {

void writeTextReport(const AnalysisResult& result, std::ostream& out, const ReportStyle& style);

}  // namespace bubblescope::analysis
