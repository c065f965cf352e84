#pragma once
// NCCL calls stuck on the device: the call's kernel was launched (the trace holds the launch call
// that the correlation table ties to it) and never finished (no kernel record carries the
// launch's correlation id). CUPTI delivers a kernel's record only once the kernel has completed,
// so a missing record means "not finished when the recorder last collected", and only that; it
// is read as "never finished" only where that collection came at least kKernelSettleNs after the
// launch, and the rank did not end cleanly:
// - a trace the agent did not close (a rank stopped, killed or hung): the agent collects
//   completed records every 0.5 s while the rank lives and stamps each commit (meta.alive_ns),
//   so a kernel that finished well before the rank was last seen has its record, even when a
//   SIGKILL lost the rest; the launch must lie in a capture window still open (a window that
//   closed dropped what started after it). A trace the agent closed is not examined: the rank
//   exited, its work completed or was torn down;
// - an imported trace (Kineto, Nsight Systems): the profiler collected every completed record
//   when it stopped; when that was is its alive stamp (Kineto's "Record Window End"), else its
//   last record. A healthy trace cut while kernels ran (an on-demand window) has its last
//   launches within the margin of its end, so they are not taken for stuck.
// Work launched later on the same stream that completed proves the call's kernel finished too (a
// stream runs in order; CUDA correlation ids grow with each launch), so such a call is not stuck,
// whatever became of its record (dropped, a buffer lost). Of the stuck launches on one stream only
// the first is where the stream stopped: those after it wait behind it.
// Pure.
#include <cstdint>
#include <vector>

#include "traces/model/trace.h"

namespace bubblescope::analysis::hang {

// What a kernel that finished this long before its rank was last seen has been delivered by: the
// agent's CUPTI collection every 0.5 s, a SIGKILL losing at most the last one, and CUPTI's own
// delay in handing over completed records.
inline constexpr TimeNs kKernelSettleNs = 2'000'000'000;

// One launch whose kernel never finished: the NCCL calls it serves (one, or a group's fused
// kernel's several) and when it was launched.
struct StuckLaunch {
  std::vector<int32_t> calls;  // rows of the rank's ncclCalls, in posting order
  TimeNs launch = 0;           // the launch call's start
  uint32_t correlation = 0;
};

// Per rank, in the run's order: the first stuck launch of each stream, earliest first.
std::vector<std::vector<StuckLaunch>> stuckOnDevice(const traces::Run& run);

}  // namespace bubblescope::analysis::hang
