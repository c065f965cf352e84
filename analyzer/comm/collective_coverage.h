#pragma once
// How many of the members of the matched NCCL collectives the run traced: what the warnings and
// the utilization headline say when a run holds only some of a communicator's members. Pure.
#include "analyzer/comm/comm_match.h"
#include "analyzer/result/traced_members.h"

namespace bubblescope::analysis {

CollectiveCoverage collectiveCoverage(const CommMatches& matches);

}  // namespace bubblescope::analysis
