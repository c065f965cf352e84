#pragma once
// The job's slowdown and its what-if decomposition (analysis.md §7; Lin et al., OSDI '25, with
// our definitions): every replica's steps re-run by the reference simulator in their observed op
// order, with every op at the job-wide mean of its kind and chunk (all replicas, stages and
// steps), transfers at their median, and the tail (DP sync, optimizer) at its measured work; the
// job's step is its slowest replica's, as the DP sync makes it. S_s, S_d, S_k: the same with
// only stage s, DP replica d or op kind k at its measured costs, over T_ideal.
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "analyzer/idle/scenarios.h"
#include "analyzer/pipeline/pipeline_trace.h"
#include "analyzer/result/job_result.h"
#include "analyzer/timeline/step_view.h"

namespace bubblescope::analysis {

struct ReplicaSteps {
  const PipelineTrace* pipeline = nullptr;
  std::vector<StepView> views;
};

// In two rounds, so that replicas analysed on other processes (analyze under MPI) send summaries,
// not their ops: each replica sends its steps' times and its op cost sums (round one), the job's
// ideal goes back to every replica, each sends its steps replayed at it (round two), and
// finishSlowdown() puts the job together. analyzeJob (job_analysis.h) makes the rounds in one
// process.

// Round one: one replica's steps and what its ops cost.
struct ReplicaStep {
  int64_t number = 0;
  TimeNs start = 0, end = 0;
  TimeNs tail = 0;  // tailOf()
};
struct ReplicaCosts {
  int dpRank = 0;
  int p = 0;
  std::vector<ReplicaStep> steps;                      // in step order
  std::map<CostKey, std::pair<TimeNs, int64_t>> sums;  // total and count, by kind and chunk
  std::vector<int> kinds;                              // the op kinds it ran, ascending
  LinkLags lags;                                       // transferLagsByLink()
};
ReplicaCosts replicaCostsOf(const ReplicaSteps& replica);

// What every replica is replayed at: means of kind and chunk over the job, the healthy transfer.
struct JobIdeal {
  std::vector<int64_t> steps;  // the step numbers every replica has, ascending
  size_t stepsMissing = 0;     // steps only some replicas have
  std::map<CostKey, TimeNs> ideal;
  TimeNs transfer = 0;
  std::vector<int> kinds;  // every replica's, ascending
  int p = 0;
};

// The job's ideal, from each replica's costs as they come (in any order).
class JobIdealSums {
 public:
  // Takes the replica's sums, kinds and lags (its steps stay: finishSlowdown reads them).
  void add(ReplicaCosts& replica);
  JobIdeal finish() const;

 private:
  size_t replicas_ = 0;
  int p_ = 0;
  std::map<int64_t, size_t> holders_;  // step number -> replicas that have it
  std::map<CostKey, std::pair<TimeNs, int64_t>> sums_;
  std::vector<int> kinds_;
  LinkLags lags_;
};

// Round two: per step of JobIdeal::steps, the replica's makespan in each scenario but the
// per-replica ones (ideal costs, measured costs, one stage measured for each stage, one kind
// measured for each kind, in that order).
struct ReplicaReplay {
  uint32_t width = 0;             // scenarios a step
  std::vector<TimeNs> makespans;  // `width` a step, step after step
  std::vector<uint8_t> replayed;  // a step: 0 where the simulator cannot re-run its op order
  const TimeNs* row(size_t step) const { return makespans.data() + step * width; }
};
ReplicaReplay replayReplica(const ReplicaSteps& replica, const JobIdeal& ideal);

// The job's slowdowns, step times and model check from both rounds (`costs` and `replays` in the
// same replica order). Steps missing on a replica, or whose order the simulator cannot re-run on
// one, are left out (said in job.notes).
void finishSlowdown(const std::vector<ReplicaCosts>& costs, const JobIdeal& ideal,
                    const std::vector<ReplicaReplay>& replays, JobResult& job);

// The op type names of Megatron's timers, by kind: "forward-compute", "backward-compute", ...
const char* opTypeName(OpKind kind);

}  // namespace bubblescope::analysis
