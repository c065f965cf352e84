#pragma once
// What found the ops, in the words every report uses: a rule set, or the inference from p2p
// traffic with its confidence (analysis.md §1b).
#include <string>

#include "analyzer/result/result.h"

namespace bubblescope::analysis {

// "recognised by the torch-pipelining rule set" or "inferred from p2p traffic (confidence high:
// 3 of 3 step(s) ...)".
std::string opsSource(const AnalysisResult& r);

}  // namespace bubblescope::analysis
