#pragma once
// A job analysed with each DP replica where its ranks are (`analyze` under MPI, docs/mpi.md): one
// process, the coordinator, holds every rank's planning part (analyze.h, planningPartOf: its
// metadata, steps and the communicators it used), places the ranks and names each replica's
// owner. The ranks move to their owners, which match their replicas' comms; the coordinator
// matches those that span replicas and aligns the job's clocks from both (split_matching.h).
// Each owner builds and analyses its replicas; what needs every replica comes in the rounds of
// job_analysis.h (arrivals, then costs, then replays), and the coordinator puts the analysis
// together: the one analyzeRecognized() makes of the whole run, warnings and errors included, in
// the same order.
//
// Each step is a call on the process that makes it; what goes between processes is bytes
// (owned_rounds_codec.h). A failure on an owner is carried to the coordinator, which throws the
// one a single process would have thrown first. Pure: no I/O.
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/analysis_steps.h"
#include "analyzer/analyze.h"
#include "analyzer/replicas/dp_waits.h"
#include "analyzer/replicas/job_whatif.h"
#include "analyzer/replicas/replica_package.h"
#include "analyzer/replicas/split_matching.h"
#include "analyzer/result/job_result.h"

namespace bubblescope::analysis {

// An exception carried between processes, thrown again as its kind: AnalysisInputError,
// std::invalid_argument, else std::runtime_error.
struct Failure {
  enum class Kind : uint8_t { None, Input, Argument, Other };
  Kind kind = Kind::None;
  std::string what;

  static Failure of(std::exception_ptr e);
  explicit operator bool() const { return kind != Kind::None; }
  [[noreturn]] void raise() const;
};

// Round one, from an owner: a replica built (its stages' clock corrections and what they say),
// and when each of its stages reached the DP sync.
struct BuiltReplica {
  Failure failure;
  std::vector<StageOffset> offsets;
  std::vector<std::string> warnings;
  ReplicaArrivals arrivals;
};

// Round two: its steps and op costs (replicaCostsOf) and its sequence-length finding.
struct OwnedCosts {
  Failure failure;
  ReplicaCosts costs;
  std::optional<SequenceImbalance> imbalance;
};

// Round three: its steps replayed at the job's ideal.
struct OwnedReplay {
  Failure failure;
  ReplicaReplay replay;
};

// Last: its analysis and what it said.
struct AnalysedReplica {
  Failure failure;
  std::vector<std::string> said;
  PipelineResult result;
};

// Whether the run can be analysed where its ranks are: its ops recognised from labels, one rank a
// stage (no TP groups), and every send and receive naming its peer. Else one process analyses it
// whole (analyzeRecognized): folding TP groups and pairing sends and receives by posting order
// read every rank's ops. `run`: the planning traces (planningTraceOf); `rosters[i]` of rank i.
bool analysableWhereRanksAre(const traces::Run& run, const std::vector<RankPlace>& places,
                             const std::vector<CommRoster>& rosters, bool kernels);

// An owner's matching of a replica's comms (split_matching.h), or why it failed.
struct OwnedMatching {
  Failure failure;
  ReplicaMatching matching;
};

class JobCoordinator {
 public:
  // `run` in run order, each trace as planningTraceOf leaves it; `light[i]` (planningPartOf),
  // `places[i]`, `steps[i]` (stepsWithOps) and `rosters[i]` of run.ranks[i]. Throws what the
  // analysis throws for the run (a stage without a trace, ranks of two runs). Returns nullptr for
  // a run of TP groups (the topology says so only once built): analyse it whole.
  static std::unique_ptr<JobCoordinator> start(traces::Run&& run, std::vector<RankOps>&& light,
                                               const std::vector<RankPlace>& places,
                                               const std::vector<std::vector<int64_t>>& steps,
                                               const std::vector<CommRoster>& rosters,
                                               const AnalyzeOptions& options);

  size_t replicas() const { return topo_.ranksOf.size(); }
  // The ranks (indexes into the run) of each replica's stages.
  std::vector<uint32_t> ranksOf(size_t replica) const;
  // Each replica's owner: of `holder` (the process holding each rank), the one holding most of
  // its ranks among those that own less than their share of the run's ranks (ties: the one that
  // owns fewer, then the lower), so that few ranks move and each process holds its share.
  std::vector<int> owners(const std::vector<int>& holder, int processes) const;
  // What an owner builds replica `replica` by, but its comms (a package without them).
  ReplicaPackage frame(size_t replica) const;
  // The communicators that span replicas, which the owners divide their calls by (ownerScope).
  const SpanningComms& spanning() const { return spanning_; }

  // Every replica's matching, in replica order: the job's clocks aligned, the comms' warnings
  // said; each replica's alignment back. Throws the first replica's failure.
  std::vector<ReplicaAlignment> aligned(std::vector<OwnedMatching>&& replicas);

  // Round one, every replica's in replica order. Throws the first replica's failure, as building
  // the pipelines one after the other would have.
  std::vector<DpWaits> built(std::vector<BuiltReplica>&& replicas);
  // Whether the job rounds are made (several replicas): else straight to analysed().
  bool jobRounds() const;
  // Round two: the job's ideal, or nothing when a replica's costs failed (the job's failure,
  // thrown after the replicas' own in finish(); the replays are skipped).
  std::optional<JobIdeal> costs(std::vector<OwnedCosts>&& replicas);
  // Round three; then which replicas a summary lists whole (empty: every one).
  std::vector<bool> replays(std::vector<OwnedReplay>&& replayed);
  // The analysis, from every replica's result in replica order. Throws the first replica's
  // failure, then the job's.
  AnalysisResult finish(std::vector<AnalysedReplica>&& replicas);

 private:
  JobCoordinator() = default;
  [[noreturn]] void raise(const Failure& f) const;
  AnalyzeOptions options_;
  AnalysisResult result_;
  Topology topo_;
  traces::Run run_;  // each rank's metadata: the spanning calls' run (alignReplicas)
  SpanningComms spanning_;
  PipelineOptions pipelineOptions_;
  std::vector<DpWaits> waits_;
  std::vector<OwnedCosts> costs_;
  std::optional<JobIdeal> ideal_;
  std::exception_ptr jobFailed_;
};

// An owner: the whole ranks of its replicas, their pipelines, and each step of their analysis.
class ReplicaOwner {
 public:
  // `numbered[i]`: run rank i's (rank, world size) as the run numbered it, all processes' ranks
  // together: matching reads every rank's number.
  explicit ReplicaOwner(const std::vector<std::pair<int32_t, int32_t>>& numbered);
  // A rank of one of its replicas: its trace as keepForAnalysis leaves it, its ops whole.
  void hold(uint32_t runIndex, traces::RankTrace&& trace, RankOps&& ops);
  // Its replica's comms matched (matchReplica), and the calls it leaves to the coordinator.
  OwnedMatching match(const ReplicaPackage& frame, const SpanningComms& spanning) const;
  // Its replica built on the job's clock, its comms matched again and split.
  BuiltReplica build(size_t replica, const ReplicaPackage& frame, const SpanningComms& spanning,
                     const ReplicaAlignment& alignment);
  OwnedCosts costsOf(size_t replica) const;
  OwnedReplay replayOf(size_t replica, const JobIdeal& ideal) const;
  // Its analysis; the pipeline goes after.
  AnalysedReplica analyse(size_t replica, const DpWaits& waits, bool whole,
                          const AnalyzeOptions& options, unsigned threads);

 private:
  traces::Run run_;
  std::vector<RankOps> ops_;
  std::map<size_t, PipelineTrace> pipelines_;
};

}  // namespace bubblescope::analysis
