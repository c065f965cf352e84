#include "analyzer/owned_analysis.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "analyzer/pipeline/clock_align.h"
#include "analyzer/replicas/culprit.h"
#include "analyzer/replicas/job_analysis.h"
#include "analyzer/replicas/listed_replicas.h"
#include "analyzer/replicas/sequence_imbalance.h"
#include "analyzer/replicas/tp_groups.h"
#include "analyzer/result/errors.h"
#include "analyzer/timeline/step_view.h"

namespace bubblescope::analysis {

Failure Failure::of(std::exception_ptr e) {
  Failure f;
  try {
    std::rethrow_exception(e);
  } catch (const AnalysisInputError& x) {
    f = {Kind::Input, x.what()};
  } catch (const std::invalid_argument& x) {
    f = {Kind::Argument, x.what()};
  } catch (const std::exception& x) {
    f = {Kind::Other, x.what()};
  } catch (...) {
    f = {Kind::Other, "an unknown error"};
  }
  return f;
}

void Failure::raise() const {
  if (kind == Kind::Input) throw AnalysisInputError(what);
  if (kind == Kind::Argument) throw std::invalid_argument(what);
  throw std::runtime_error(what);
}

bool analysableWhereRanksAre(const traces::Run& run, const std::vector<RankPlace>& places,
                             const std::vector<CommRoster>& rosters, bool kernels) {
  if (std::none_of(places.begin(), places.end(), [](const RankPlace& p) { return p.hasOps; })) {
    return false;
  }
  if (std::any_of(rosters.begin(), rosters.end(),
                  [](const CommRoster& r) { return r.unnamedP2p; })) {
    return false;
  }
  if (!kernels) {
    for (const auto& group : tpGroupsFromMetadata(run)) {
      if (group.size() > 1) return false;
    }
  }
  return true;
}

std::unique_ptr<JobCoordinator> JobCoordinator::start(
    traces::Run&& run, std::vector<RankOps>&& light, const std::vector<RankPlace>& places,
    const std::vector<std::vector<int64_t>>& steps, const std::vector<CommRoster>& rosters,
    const AnalyzeOptions& options) {
  std::unique_ptr<JobCoordinator> c(new JobCoordinator());
  c->options_ = options;
  // As analyzeRecognized: the run and its topology; the comms are matched once the ranks are
  // with their replicas' owners (aligned()).
  c->result_ = describeRun(run);
  c->topo_ = buildTopology(run, places);
  if (c->topo_.tp > 1) return nullptr;
  std::vector<int> replicaOf(run.ranks.size(), -1);
  for (size_t d = 0; d < c->topo_.ranksOf.size(); ++d) {
    for (const auto& stage : c->topo_.ranksOf[d]) {
      for (size_t r : stage) replicaOf.at(r) = static_cast<int>(d);
    }
  }
  // A rank of no replica would be matched by nobody: the run is analysed whole.
  if (std::count(replicaOf.begin(), replicaOf.end(), -1) > 0) return nullptr;
  describeTopology(c->topo_, light, P2pInference{}, c->result_);
  c->spanning_ = spanningComms(rosters, replicaOf, globalRanks(run));
  PipelineOptions& po = c->pipelineOptions_;
  po.alignClocks = options.alignClocks;
  po.firstStep = options.firstStep;
  po.lastStep = options.lastStep;
  if (options.leaveOutWarmupStep) {
    if (const auto warmup = warmupStep(steps, options.firstStep, options.lastStep)) {
      c->result_.warmupStepLeftOut = warmup;
      po.firstStep = *warmup + 1;
    }
  }
  c->result_.clock.enabled = options.alignClocks;
  c->result_.clock.offsets.assign(run.ranks.size(), 0);
  // Of each rank, the metadata the spanning calls' matching reads.
  c->run_.ranks.resize(run.ranks.size());
  for (size_t r = 0; r < run.ranks.size(); ++r)
    c->run_.ranks[r].meta = std::move(run.ranks[r].meta);
  return c;
}

std::vector<uint32_t> JobCoordinator::ranksOf(size_t replica) const {
  std::vector<uint32_t> out;
  for (const auto& stage : topo_.ranksOf.at(replica)) {
    for (size_t r : stage) out.push_back(static_cast<uint32_t>(r));
  }
  return out;
}

std::vector<int> JobCoordinator::owners(const std::vector<int>& holder, int processes) const {
  const size_t n = static_cast<size_t>(std::max(processes, 1));
  // held[d][p]: how many of replica d's ranks process p holds.
  std::vector<std::vector<size_t>> held(replicas(), std::vector<size_t>(n, 0));
  std::vector<size_t> sizes(replicas(), 0);
  size_t total = 0;
  for (size_t d = 0; d < replicas(); ++d) {
    for (uint32_t r : ranksOf(d)) {
      const int h = holder.at(r);
      if (h >= 0 && static_cast<size_t>(h) < n) ++held[d][static_cast<size_t>(h)];
      ++sizes[d];
    }
    total += sizes[d];
  }
  // Each process owns about its share of the ranks (a process owning more holds more once they
  // have moved: files dealt by size scatter a replica's ranks, and "most of its ranks" alone gave
  // one process 5 of 8 replicas). The replicas held most one-sidedly choose first.
  const size_t share = (total + n - 1) / n;
  std::vector<size_t> order(replicas());
  for (size_t d = 0; d < order.size(); ++d) order[d] = d;
  auto most = [&](size_t d) { return *std::max_element(held[d].begin(), held[d].end()); };
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return most(a) > most(b); });
  std::vector<int> out(replicas(), 0);
  std::vector<size_t> owned(n, 0);
  for (const size_t d : order) {
    // Most of its ranks among those with room for it (any, if none has), else the one that owns
    // the fewest ranks so far, else the lower.
    const bool anyRoom =
        std::any_of(owned.begin(), owned.end(), [&](size_t o) { return o + sizes[d] <= share; });
    size_t best = n;
    for (size_t p = 0; p < n; ++p) {
      if (anyRoom && owned[p] + sizes[d] > share) continue;
      if (best == n || held[d][p] > held[d][best] ||
          (held[d][p] == held[d][best] && owned[p] < owned[best])) {
        best = p;
      }
    }
    owned[best] += sizes[d];
    out[d] = static_cast<int>(best);
  }
  return out;
}

ReplicaPackage JobCoordinator::frame(size_t replica) const {
  return replicaFrame(topo_, replica, pipelineOptions_);
}

// As analyzeAfterRecognition: a refusal is led by the run it came from (inRun), whichever
// process met it.
void JobCoordinator::raise(const Failure& f) const {
  if (f.kind == Failure::Kind::Input) throw AnalysisInputError(inRun(result_.runDir, f.what));
  f.raise();
}

std::vector<ReplicaAlignment> JobCoordinator::aligned(std::vector<OwnedMatching>&& replicas) {
  std::vector<ReplicaMatching> matchings;
  matchings.reserve(replicas.size());
  for (OwnedMatching& m : replicas) {
    if (m.failure) raise(m.failure);
    matchings.push_back(std::move(m.matching));
  }
  replicas.clear();
  std::vector<std::vector<uint32_t>> ranks;
  for (size_t d = 0; d < this->replicas(); ++d) ranks.push_back(ranksOf(d));
  std::vector<ReplicaAlignment> out = alignReplicas(run_, std::move(matchings), ranks, spanning_,
                                                    options_.alignClocks, result_.warnings);
  // Of the run, what the result reads on: nothing but its size (read already).
  run_ = traces::Run{};
  return out;
}

std::vector<DpWaits> JobCoordinator::built(std::vector<BuiltReplica>&& replicas) {
  std::vector<ReplicaArrivals> arrivals;
  arrivals.reserve(replicas.size());
  for (BuiltReplica& b : replicas) {
    if (b.failure) raise(b.failure);
    recordOffsets(b.offsets, result_);
    for (std::string& w : b.warnings) result_.warnings.push_back(std::move(w));
    arrivals.push_back(std::move(b.arrivals));
  }
  waits_ = dpWaitsFrom(arrivals);
  return waits_;
}

bool JobCoordinator::jobRounds() const {
  return topo_.dp > 1 || topo_.tp > 1;
}

std::optional<JobIdeal> JobCoordinator::costs(std::vector<OwnedCosts>&& replicas) {
  try {
    JobIdealSums sums;
    for (OwnedCosts& c : replicas) {
      if (c.failure) raise(c.failure);
      sums.add(c.costs);
    }
    ideal_ = sums.finish();
    costs_ = std::move(replicas);
  } catch (...) {
    jobFailed_ = std::current_exception();
  }
  return ideal_;
}

std::vector<bool> JobCoordinator::replays(std::vector<OwnedReplay>&& replayed) {
  if (ideal_) {
    try {
      std::vector<ReplicaReplay> replays;
      replays.reserve(replayed.size());
      for (OwnedReplay& r : replayed) {
        if (r.failure) raise(r.failure);
        replays.push_back(std::move(r.replay));
      }
      std::vector<ReplicaCosts> costs;
      std::vector<std::optional<SequenceImbalance>> imbalances;
      for (OwnedCosts& c : costs_) {
        costs.push_back(std::move(c.costs));
        imbalances.push_back(std::move(c.imbalance));
      }
      costs_.clear();
      analyzeJobFrom(costs, *ideal_, replays, waits_, std::move(imbalances), result_.job);
    } catch (...) {
      jobFailed_ = std::current_exception();
    }
  }
  if (!options_.everyGap && !jobFailed_ && replicas() > options_.pipelinesListedWhole) {
    return replicasListedWhole(result_.job, topo_.dpRanks, options_.pipelinesListedWhole);
  }
  return {};
}

AnalysisResult JobCoordinator::finish(std::vector<AnalysedReplica>&& replicas) {
  result_.pipelines.resize(replicas.size());
  for (size_t d = 0; d < replicas.size(); ++d) {
    for (std::string& w : replicas[d].said) result_.warnings.push_back(std::move(w));
    if (replicas[d].failure) raise(replicas[d].failure);
    result_.pipelines[d] = std::move(replicas[d].result);
  }
  if (jobFailed_) {
    try {
      std::rethrow_exception(jobFailed_);
    } catch (const AnalysisInputError& e) {
      throw AnalysisInputError(inRun(result_.runDir, e.what()));
    }
  }
  for (const PipelineResult& pl : result_.pipelines) {
    if (result_.job.culpritStalls && pl.dpRank == result_.job.culpritDp) {
      addStallingPipeline(result_.job, pl.culprit);
    }
  }
  return std::move(result_);
}

ReplicaOwner::ReplicaOwner(const std::vector<std::pair<int32_t, int32_t>>& numbered) {
  run_.ranks.resize(numbered.size());
  ops_.resize(numbered.size());
  for (size_t r = 0; r < numbered.size(); ++r) {
    run_.ranks[r].meta.rank = numbered[r].first;
    run_.ranks[r].meta.worldSize = numbered[r].second;
  }
}

void ReplicaOwner::hold(uint32_t runIndex, traces::RankTrace&& trace, RankOps&& ops) {
  if (runIndex >= ops_.size()) throw std::invalid_argument("a rank outside the run");
  run_.ranks[runIndex] = std::move(trace);
  ops_[runIndex] = std::move(ops);
}

OwnedMatching ReplicaOwner::match(const ReplicaPackage& frame,
                                  const SpanningComms& spanning) const {
  OwnedMatching out;
  try {
    out.matching = matchReplica(run_, ops_, frame.ranks, spanning);
  } catch (...) {
    out.failure = Failure::of(std::current_exception());
  }
  return out;
}

BuiltReplica ReplicaOwner::build(size_t replica, const ReplicaPackage& frame,
                                 const SpanningComms& spanning, const ReplicaAlignment& alignment) {
  BuiltReplica b;
  try {
    // Its package, as the process that matched the job's comms would have made it: the ranks'
    // NCCL kernels shifted to the job's clock and split, the sends and receives in the job's
    // order. The replica's comms are matched again (match() made them once): kept from then,
    // every owned replica's matches would lie beside the ranks through the alignment round.
    ReplicaPackage package = frame;
    {
      const CommMatches local =
          matchCommsIn(run_, ops_, ownerScope(run_, ops_, frame.ranks, spanning));
      std::vector<RankOps> light(ops_.size());
      if (alignment.offsetsApplied && alignment.offsets.size() != frame.ranks.size()) {
        throw std::invalid_argument("a replica's offsets are not one a rank");
      }
      for (size_t i = 0; i < frame.ranks.size(); ++i) {
        const uint32_t r = frame.ranks[i];
        light[r].commKernels = ops_[r].commKernels;
        if (alignment.offsetsApplied) shiftTimes(light[r], alignment.offsets[i]);
      }
      splitCommKernels(local, light);
      for (const KernelSplit& s : alignment.splits) {
        if (s.rank >= light.size() || s.kernel >= light[s.rank].commKernels.size()) {
          throw std::invalid_argument("a split kernel outside the replica");
        }
        CommKernel& ck = light[s.rank].commKernels[s.kernel];
        ck.transferStart = s.transferStart;
        ck.matched = s.matched;
        ck.members = s.members;
      }
      package.offsetsApplied = alignment.offsetsApplied;
      package.offsets = alignment.offsets;
      package.commKernels.clear();
      for (uint32_t r : frame.ranks) package.commKernels.push_back(std::move(light[r].commKernels));
      package.p2p = mergedP2p(run_, local, alignment.p2p);
    }
    PipelineTrace pl = buildOwnedReplica(package, ops_);
    b.offsets = stageOffsetsOf(pl);
    b.warnings = stageOffsetWarnings(run_, pl);
    b.arrivals = arrivalsOf(pl);
    pipelines_[replica] = std::move(pl);
  } catch (...) {
    b.failure = Failure::of(std::current_exception());
  }
  return b;
}

OwnedCosts ReplicaOwner::costsOf(size_t replica) const {
  OwnedCosts c;
  try {
    const PipelineTrace& pl = pipelines_.at(replica);
    const ReplicaSteps steps{&pl, buildStepViews(pl)};
    c.costs = replicaCostsOf(steps);
    c.imbalance = sequenceImbalanceOf(steps);
  } catch (...) {
    c.failure = Failure::of(std::current_exception());
  }
  return c;
}

OwnedReplay ReplicaOwner::replayOf(size_t replica, const JobIdeal& ideal) const {
  OwnedReplay r;
  try {
    const PipelineTrace& pl = pipelines_.at(replica);
    r.replay = replayReplica({&pl, buildStepViews(pl)}, ideal);
  } catch (...) {
    r.failure = Failure::of(std::current_exception());
  }
  return r;
}

AnalysedReplica ReplicaOwner::analyse(size_t replica, const DpWaits& waits, bool whole,
                                      const AnalyzeOptions& options, unsigned threads) {
  AnalysedReplica a;
  try {
    const PipelineTrace& pl = pipelines_.at(replica);
    a.result = analyzeReplica(run_, pl, waits, options.everyGap ? KeptGaps::All : KeptGaps::Listed,
                              false, whole, threads, a.said);
  } catch (...) {
    a.failure = Failure::of(std::current_exception());
  }
  pipelines_.erase(replica);
  return a;
}

}  // namespace bubblescope::analysis
