#pragma once
// The terminal report: readable tables, color when the output is a terminal.
#include <ostream>

#include "analyzer/result/result.h"

namespace bubblescope::analysis {

void writeTextReport(const AnalysisResult& result, std::ostream& out, bool color);

}  // namespace bubblescope::analysis
