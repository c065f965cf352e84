#pragma once
// What the reader should know of the NCCL matching, in one sentence each: calls that name no
// peer or whose other side is not in the run, kernels tied to no call (the waiting inside them
// unknown), collectives with members the run does not trace (their waiting is the traced
// members' only). Every analysis that splits NCCL kernels into waiting and transfer says these,
// pipeline or not.
#include <string>
#include <vector>

#include "analyzer/comm/comm_match.h"

namespace bubblescope::analysis {

std::vector<std::string> commWarnings(const CommMatches& matches);

}  // namespace bubblescope::analysis
