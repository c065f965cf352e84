#pragma once
// A Megatron-LM job of PP x TP x DP ranks, for tests of the NDTimeline import and the job-wide
// analysis: what the job is (grid, microbatches, op costs, transfers, the step's tail) and what
// goes wrong in it (a slow stage, a slow DP replica, one slow TP rank, long sequences in some
// microbatches). Our own model of Megatron's 1F1B schedule as NDTimeline records it
// (megatron_execution.h), written independently of the analyzer and the reference simulator.
#include <cstdint>
#include <optional>
#include <vector>

#include "traces/model/time.h"

namespace bubblescope::tracegen {

struct MegatronJob {
  int pp = 4, tp = 1, dp = 2;
  int m = 8;  // microbatches per step
  int v = 1;  // model chunks per stage: > 1 runs Megatron's interleaved 1F1B (m a multiple of pp)
  int steps = 3;
  // Device time of one op (of one model chunk) of a healthy TP rank.
  TimeNs costF = 2'000'000, costB = 4'000'000;
  TimeNs transfer = 100'000;  // one point-to-point transfer (activations or gradients)
  TimeNs tpComm = 50'000;     // the tp-allreduce that closes each op on every TP rank
  TimeNs tpSkew = 20'000;     // TP ranks start an op up to this much apart (seeded)
  // The step's tail: the DP reduce-scatter of gradients, the grad-norm all-reduce over the
  // world (optimizer-clip-main-grad), the optimizer, the DP all-gather of parameters.
  TimeNs dataLoad = 200'000;
  TimeNs reduceScatter = 600'000, clipGrad = 100'000, optimizer = 1'000'000, allGather = 500'000;
  // What goes wrong.
  std::optional<int> slowStage;  // on every replica
  double slowStageFactor = 1.0;
  std::optional<int> slowReplica;  // every stage of it
  double slowReplicaFactor = 1.0;
  // The slow replica moves on each step ((slowReplica + step) % dp), so a different replica
  // arrives last at the DP sync in each step, as in ByteDance's published 128-rank job.
  bool slowReplicaRotates = false;
  struct TpRank {
    int dp = 0, pp = 0, tp = 0;
  };
  std::optional<TpRank> slowTpRank;
  double slowTpFactor = 1.0;
  // Sequence-length imbalance: microbatch k of every replica costs seqFactor[k] on every stage.
  std::vector<double> seqFactor;
  double jitter = 0.0;  // relative spread of op costs (uniform in +-jitter), seeded
  uint64_t seed = 7;
  TimeNs start = 1'000'000'000;  // the timeline's first time (ns)

  int ranks() const { return pp * tp * dp; }
  // Megatron's default rank order (tp fastest, then dp, then pp).
  int globalRank(int d, int s, int t) const { return t + tp * (d + dp * s); }
};

}  // namespace bubblescope::tracegen
