#pragma once
// The Markdown report: sized for a pull-request comment (GitHub renders it). Run identity, step
// time measured vs ideal and S, the per-stage split with the idle classes and S_s, the add-up
// line, the top gaps with their blame, the what-if table and the warnings. Past 16 stages the
// full stage table folds into a <details> block behind the stages that matter most.
#include <ostream>

#include "analyzer/result/result.h"

namespace bubblescope::analysis {

// More stages than this and the per-stage table is collapsed.
inline constexpr int kMarkdownMaxOpenStages = 16;

void writeMarkdownReport(const AnalysisResult& result, std::ostream& out);

}  // namespace bubblescope::analysis
