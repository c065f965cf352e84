#pragma once
// `bubblescope hang --all`: the answers of a running job's processes (live_snapshot.h) as the run
// the post-mortem analysis reads (hang_analysis.h), so the live and the recorded report are one.
// Pure: the command line asks the sockets (cli/live_query.h), this assembles the run.
//
// Two things differ from a recorded run, and are settled here:
// - Histories are cut: each process keeps its last NCCL calls, cut at different places. A call
//   whose other side has been made (the partner's count has reached its number) but has scrolled
//   out of the partner's history is left out, so the calls left pair up in posting order as in a
//   trace; a call whose other side has not been made is a wait.
// - The job runs: a thread is in a range, and a call lacks its partner, for a moment all the time.
//   Only what has lasted `minWaitNs` by the time its process answered counts (younger ranges and
//   unpartnered calls are left out).
#include <cstdint>
#include <vector>

#include "agent/control/live_snapshot.h"
#include "agent/control/targets.h"
#include "traces/model/trace.h"

namespace bubblescope::analysis::hang {

struct LiveRank {
  control::AgentStatus status;
  control::LiveSnapshot snapshot;
};

// `ranks` in any order: the run holds them as a person reads a job (by rank).
traces::Run liveRun(std::vector<LiveRank> ranks, int64_t minWaitNs);

}  // namespace bubblescope::analysis::hang
