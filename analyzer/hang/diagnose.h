#pragma once
// From where each rank stopped to one diagnosis: the wait-for graph (an edge from a rank to each
// rank its innermost wait needs), then, in this order, a sequence mismatch, a dead rank (the first
// to die), a cycle (deadlock; or, when every rank of it waits in a matched NCCL call whose kernel
// never finished, NCCL itself stuck), a chain of waits ending at a rank that never made the
// matching call, a run stopped with nobody waiting, or a clean end. Pure: no I/O.
#include <vector>

#include "analyzer/hang/hang.h"
#include "analyzer/hang/nccl_waits.h"

namespace bubblescope::analysis::hang {

HangReport diagnose(std::vector<RankStop> ranks, const NcclFindings& nccl);

// "12:03:05.123" (UTC), how the report tells times.
std::string clockTime(TimeNs ns);

}  // namespace bubblescope::analysis::hang
