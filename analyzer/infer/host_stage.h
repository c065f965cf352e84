#pragma once
// A stage with no device activity (a CPU job): its ops are its host time between point-to-point
// calls on the thread that posts them (host_segments.h), its sends and receives are those calls,
// and its collectives are its gradient sync. Turns one rank's trace into the RankOps a rule set
// would give.
#include <map>
#include <unordered_map>
#include <vector>

#include "analyzer/comm/comm_match.h"
#include "analyzer/infer/host_segments.h"
#include "analyzer/infer/v_reading.h"
#include "analyzer/recognize/recognized.h"
#include "traces/model/trace.h"

namespace bubblescope::analysis {

// Calls shorter apart than this were posted together (a send, then the next receive): the
// host's own bookkeeping between two calls, no op, takes a few microseconds.
inline constexpr TimeNs kPostedTogether = 50'000;

// Ranks that ran no NCCL kernel (a CPU job, a trace of host calls only) have their transfers
// matched call to call, as matchComms() would with kernels, and added to `matches.p2p` (their
// kernel refs name the rank only).
void addHostMatches(const traces::Run& run, const std::vector<RankOps>& marks,
                    CommMatches& matches);

// The thread that posts most of the rank's sends and receives: the training loop's.
traces::ThreadIndex postingThread(const traces::RankTrace& t);

// `typed`: the rank's matched transfers (ncclCalls row -> what it tells). Every NCCL call of
// `thread`, and the optimizer and gradient-sync ranges, bound the stretches; the thread's other
// named ranges are the evidence of host work that is not an op.
HostSegmentation segmentHostStage(const traces::RankTrace& t, const RankOps& marks,
                                  const std::map<int32_t, CutKind>& typed,
                                  traces::ThreadIndex thread, std::array<TimeNs, 2> fallback);

// The stage's ops (from `seg`), sends and receives (its typed calls), gradient sync (its
// collectives), steps and microbatches (`microbatches` per step: cutInferredSteps). `messages`:
// in a V, what each transfer call carried (its pass, chunk and microbatch); else the direction
// tells, and the microbatches are counted in order.
RankOps withHostOps(const traces::RankTrace& t, RankOps&& marks, const HostSegmentation& seg,
                    const std::map<int32_t, CutKind>& typed, int stage, int microbatches,
                    const std::unordered_map<int32_t, VCarried>* messages = nullptr);

}  // namespace bubblescope::analysis
