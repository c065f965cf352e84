#pragma once
// A job analysed with each DP replica where its ranks are (`analyze` under MPI, docs/mpi.md): one
// process, the coordinator, holds every rank's light part (analyze.h, lightPartOf: what matching
// the comms and aligning the clocks read), places the ranks, matches, aligns and splits, and sends
// each replica's owner its package (replica_package.h). Each owner builds and analyses its
// replicas; what needs every replica comes in the rounds of job_analysis.h (arrivals, then costs,
// then replays), and the coordinator puts the analysis together: the one analyzeRecognized()
// makes of the whole run, warnings and errors included, in the same order.
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
// read every rank's ops. `run`: the light traces (each as keepForAnalysis leaves it).
bool analysableWhereRanksAre(const traces::Run& run, const std::vector<RankPlace>& places,
                             bool kernels);

class JobCoordinator {
 public:
  // `run` in run order, each trace as keepForAnalysis leaves it (its memory samples may be
  // gone, and of its NCCL calls all but what matchComms reads: start, op, peer, comm, commRank,
  // commSize, seq); `light[i]`, `places[i]`, `steps[i]` (stepsWithOps) of run.ranks[i]. Throws what
  // the analysis throws for the run (a stage without a trace, ranks of two runs). Returns nullptr
  // for a run of TP groups (the topology says so only once built): analyse it whole.
  static std::unique_ptr<JobCoordinator> start(traces::Run&& run, std::vector<RankOps>&& light,
                                               const std::vector<RankPlace>& places,
                                               const std::vector<std::vector<int64_t>>& steps,
                                               const AnalyzeOptions& options);

  size_t replicas() const { return topo_.ranksOf.size(); }
  // The ranks (indexes into the run) of each replica's stages.
  std::vector<uint32_t> ranksOf(size_t replica) const;
  // Each replica's owner: of `holder` (the process holding each rank), the one holding most of
  // its ranks (ties: the lower), so that the fewest ranks move.
  std::vector<int> owners(const std::vector<int>& holder, int processes) const;
  // Each replica's once: its ranks' light parts and NCCL calls go with it (every rank is of one
  // replica).
  ReplicaPackage takePackage(size_t replica);
  // Once every package is made: the light parts go.
  void packagesMade();

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
  AnalyzeOptions options_;
  AnalysisResult result_;
  Topology topo_;
  traces::Run run_;
  std::vector<RankOps> light_;
  CommMatches comms_;
  PipelineOptions pipelineOptions_;
  std::vector<DpWaits> waits_;
  std::vector<OwnedCosts> costs_;
  std::optional<JobIdeal> ideal_;
  std::exception_ptr jobFailed_;
};

// An owner: the whole ranks of its replicas, their pipelines, and each step of their analysis.
class ReplicaOwner {
 public:
  // `runRanks`: the run's ranks, all processes' together (indexes into the run).
  explicit ReplicaOwner(size_t runRanks);
  // A rank of one of its replicas: its trace as keepForAnalysis leaves it, its ops whole.
  void hold(uint32_t runIndex, traces::RankTrace&& trace, RankOps&& ops);
  BuiltReplica build(size_t replica, const ReplicaPackage& package);
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
