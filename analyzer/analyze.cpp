#include "analyzer/analyze.h"

#include <algorithm>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

#include "analyzer/analysis_steps.h"
#include "analyzer/comm/comm_match.h"
#include "analyzer/comm/posting_order.h"
#include "analyzer/infer/confidence.h"
#include "analyzer/infer/infer_pipeline.h"
#include "analyzer/pipeline/pipeline_trace.h"
#include "analyzer/pipeline/topology.h"
#include "analyzer/pipeline_analysis.h"
#include "analyzer/recognize/kernel_attribution.h"
#include "analyzer/recognize/recognizer.h"
#include "analyzer/replicas/culprit.h"
#include "analyzer/replicas/dp_waits.h"
#include "analyzer/replicas/job_analysis.h"
#include "analyzer/replicas/tp_groups.h"
#include "analyzer/result/errors.h"
#include "analyzer/utilization/utilization.h"
#include "traces/parallel/parallel_for.h"

namespace bubblescope::analysis {
namespace {

// A rank's names and threads, given back (once: the string table of none is one empty name).
void releaseNames(traces::RankTrace& t) {
  if (t.strings.size() > 1) {
    t.strings = traces::StringTable();
    t.strings.shrinkToFit();
  }
  std::vector<traces::Thread>().swap(t.threads);
}

// With `releasable` (the caller gave up the run), a rank whose ranges were recognised as ops
// keeps only what the analysis reads after recognition (keepForAnalysis), as each process under
// MPI does: op-level timelines (NDTimeline) are almost nothing but ranges, held twice otherwise,
// and a kernel-level trace's launches, correlations and kernels were held until the comms were
// matched (docs/benchmarks.md, "The memory look reads the kernels its ops carry"). Its names and
// threads go too: nothing after recognition reads a name (the memory look reads the compute
// kernels recognised with the ops); at 20,000 ranks they were 20 MB of the peak, held through
// the topology and comm matching (issue 28). (Under MPI they go after the topology: an op-level
// timeline's TP groups are read off its threads' names there.)
void releaseRanges(traces::RankTrace& t) {
  keepForAnalysis(t);
  releaseNames(t);
}

// What nothing after recognition reads of a rank: its ranges (turned into ops), marks, copies,
// sets, syncs, API calls and correlations.
void releaseUnreadAfterRecognition(traces::RankTrace& t) {
  t.ranges.reset();
  t.marks.reset();
  t.memcpys.reset();
  t.memsets.reset();
  t.syncs.reset();
  t.apiCalls.reset();
  t.correlations.reset();
}

// Once the comms are matched, what reads on reads the recognised ops, the matches and the ranks'
// metadata; of the run's events, only the device memory attached to the gaps (a rank's memory
// samples; its compute kernels are in its ops). With `releasable` the rest goes before the
// pipelines are built and their records grow: on the 8-rank Kineto budget job the launches,
// NCCL calls and kernels still held were a third of the peak.
void releaseAfterMatching(traces::Run& run) {
  for (traces::RankTrace& t : run.ranks) {
    releaseUnreadAfterRecognition(t);
    t.ncclCalls.reset();
    t.kernels.reset();
  }
}

// Once the topology is built and its TP groups folded, what reads on reads of a rank only its
// number and, where it has device memory samples, what the memory look reads (the samples and
// the devices). The rest goes before the pipelines are built: names, threads and metadata maps
// were 22 MB of the peak at 10,000 stages of an op-level timeline, and 42 MB at 10,000 replicas
// (issue 28).
void releaseAfterTopology(traces::Run& run) {
  for (traces::RankTrace& t : run.ranks) {
    std::filesystem::path().swap(t.file);
    releaseNames(t);
    // Read through const: a non-const read makes the absent table (20,000 of them, 1.9 MB).
    if (std::as_const(t).memory->size() == 0) std::vector<traces::Device>().swap(t.devices);
    std::vector<traces::Stream>().swap(t.streams);
    t.meta.extra.clear();
    t.meta.dropped.clear();
    std::vector<traces::ClockAnchor>().swap(t.meta.clockAnchors);
    std::vector<traces::CaptureWindow>().swap(t.meta.captureWindows);
  }
}

// Recognises every rank, `threads` at a time. With `groups` (TP groups of an op-level timeline),
// a group's members are recognised together and folded at once (tp_groups.h), their results
// going to `folded`.
std::vector<RankOps> recognizeAll(const traces::Run& run, const std::vector<const RuleSet*>& sets,
                                  unsigned threads, const std::vector<std::vector<size_t>>& groups,
                                  std::vector<TpGroupResult>& folded,
                                  std::vector<std::string>& warnings, traces::Run* releasable) {
  std::vector<RankOps> out(run.ranks.size());
  const size_t units = groups.empty() ? run.ranks.size() : groups.size();
  std::mutex mutex;
  // What each group's fold said, in the groups' order whatever order they finish in.
  std::vector<std::vector<std::string>> said(groups.size());
  auto recognizeRank = [&](size_t i) { out[i] = recognizeForAnalysis(run.ranks[i], sets); };
  // Each worker touches only its own ranks' traces.
  auto release = [&](size_t i) {
    if (releasable && !out[i].ops.empty()) releaseRanges(releasable->ranks[i]);
  };
  // A rank's ranges go as soon as its ops are made, but ranks recognised side by side hold their
  // ranges and their ops at once: on a run of a few large ranks that is the analysis's peak (PP2
  // at 10^5 steps: both ranks' ranges, 87 MB, beside both ranks' ops, 134 MB). Recognition is a
  // few percent of the time there; one at a time holds one rank's ranges less (issue 28).
  const unsigned workers =
      releasable != nullptr && units <= 2 * size_t{traces::threadCount(threads)} ? 1 : threads;
  traces::parallelFor(units, workers, [&](size_t u) {
    if (groups.empty()) {
      recognizeRank(u);
      release(u);
      return;
    }
    for (size_t i : groups[u]) recognizeRank(i);
    if (groups[u].size() < 2) {
      for (size_t i : groups[u]) release(i);
      return;
    }
    // Folding moves the members' ops into the group's: which ranks were labelled is known
    // before.
    std::vector<size_t> labelled;
    for (size_t i : groups[u]) {
      if (!out[i].ops.empty()) labelled.push_back(i);
    }
    TpGroupResult g = foldEarly(run, out, groups[u], said[u]);
    if (releasable) {
      for (size_t i : labelled) releaseRanges(releasable->ranks[i]);
    }
    std::lock_guard lock(mutex);
    folded.push_back(std::move(g));
  });
  for (auto& group : said) {
    for (auto& w : group) warnings.push_back(std::move(w));
  }
  return out;
}

// Puts the members of the groups folded while recognising back into their stage (after its
// representative, whose ops are the group's), so the stage lists every rank.
void restoreFoldedMembers(Topology& topo, const std::vector<std::vector<size_t>>& groups) {
  for (const auto& members : groups) {
    if (members.size() < 2) continue;
    for (auto& row : topo.ranksOf) {
      for (auto& stage : row) {
        if (stage.empty() || stage.front() != members.front()) continue;
        stage.assign(members.begin(), members.end());
        topo.tp = std::max(topo.tp, static_cast<int>(members.size()));
      }
    }
  }
}

// Utilization needs something that ran on a device; a host-only trace gets the labelling hint.
bool hasDeviceWork(const traces::Run& run) {
  return std::any_of(run.ranks.begin(), run.ranks.end(), [](const traces::RankTrace& r) {
    return r.kernels->size() + r.memcpys->size() + r.memsets->size() > 0;
  });
}

// A run with neither recognised ops nor a pipeline in its traffic: its utilization when the
// caller takes that and something ran on a device, else an AnalysisInputError saying what was
// tried.
AnalysisResult withoutPipeline(const traces::Run& run, const AnalyzeOptions& options,
                               const RuleSets& rules, const P2pInference& inferred) {
  if (options.utilizationWithoutPipeline && hasDeviceWork(run)) {
    AnalysisResult result;
    result.runDir = run.dir.string();
    result.ranks = static_cast<int>(run.ranks.size());
    for (const auto& r : run.ranks) {
      if (result.command.empty()) result.command = r.meta.command;
      result.droppedEvents += r.meta.droppedTotal();
    }
    result.topologySource = "none";
    result.ruleSet = "none";
    result.clock.enabled = options.alignClocks;
    result.warnings = inferred.notes;
    result.utilization = utilizationOf(run, options.alignClocks, &result.warnings);
    result.warnings.push_back(
        "no pipeline: no rule set recognised an op and the NCCL traffic forms no pipeline; "
        "utilization only (to analyse a pipeline, " +
        std::string(annotationHint()) + ")");
    return result;
  }
  std::string tried;
  for (const RuleSet* s : rules.all) tried += (tried.empty() ? "" : ", ") + s->name;
  // Why the traffic gave no pipeline either, when it was there to read.
  std::string traffic;
  if (inferred.notChains > 0) {
    traffic = "; their NCCL point-to-point traffic forms no chain in " +
              std::to_string(inferred.notChains) +
              " rank set(s) (a ring or a V, as interleaved and ZB-V schedules send: inferring "
              "those is not supported)";
  }
  for (const std::string& n : inferred.notes) traffic += "; " + n;
  throw AnalysisInputError(
      run.dir.string() + ": no pipeline ops recognised in " + std::to_string(run.ranks.size()) +
      " trace(s) (rule sets tried: " + tried + ")" + traffic + "; " + annotationHint());
}

// Sends and receives that name no peer, where labels give the pipeline: given their neighbours'
// in posting order (posting_order.h). None for a pipeline read off the traffic, which has peers.
PostingOrderPeers peersOfUnnamedCalls(const traces::Run& run, const std::vector<RankOps>& ops,
                                      const Topology& topo, const P2pInference& inferred) {
  const bool unnamed = std::any_of(run.ranks.begin(), run.ranks.end(), hasUnnamedPointToPoint);
  if (inferred.found || !unnamed) return {};
  PipelinePlaces places;
  places.ranksOf = topo.ranksOf;
  for (size_t replica = 0; replica < topo.ranksOf.size(); ++replica) {
    places.layouts.push_back(chunkLayoutOf(topo, replica, ops));
  }
  return peersByPostingOrder(run, ops, places);
}

// One DP replica's pipeline, built; its stages' clock corrections are recorded and the large
// ones said.
PipelineTrace buildReplica(const traces::Run& run, const Topology& topo, size_t replica,
                           std::vector<RankOps>& ops, const PipelineOptions& options,
                           AnalysisResult& result) {
  PipelineTrace pl = buildPipeline(topo, replica, ops, options);
  recordOffsets(stageOffsetsOf(pl), result);
  for (std::string& w : stageOffsetWarnings(run, pl)) result.warnings.push_back(std::move(w));
  return pl;
}

// Every replica's pipeline analysed into `result`, `threads` at a time (each reads only its own
// pipeline and the run), their drain gaps holding their `waits`. What each says, and the first
// replica's error if any, come in replica order, as one after the other would have them.
// `opsReadAfter`: every op record is read once the pipelines are analysed (the inference check).
// `whole` (empty: every one) says which replicas keep their whole result; the others are
// summarised as soon as they are analysed. Each pipeline is emptied once analysed, unless
// `opsReadAfter`.
void analyzeReplicas(const traces::Run& run, std::vector<PipelineTrace>& pipelines,
                     const std::vector<DpWaits>& waits, KeptGaps kept, bool opsReadAfter,
                     const std::vector<bool>& whole, unsigned threads, AnalysisResult& result) {
  // Each replica's result goes straight to its place: results analysed aside and moved in held
  // two vectors of 10,000 results' shells at once (7.5 MB).
  const size_t first = result.pipelines.size();
  result.pipelines.resize(first + pipelines.size());
  std::vector<std::vector<std::string>> said(pipelines.size());
  std::vector<std::exception_ptr> failed(pipelines.size());
  // The threads the replicas leave go to each one's steps (one replica: all of them).
  const unsigned perReplica = traces::threadsEach(pipelines.size(), threads);
  traces::parallelFor(pipelines.size(), threads, [&](size_t d) {
    try {
      result.pipelines[first + d] = analyzeReplica(run, pipelines[d], waits[d], kept, opsReadAfter,
                                                   whole.empty() || whole[d], perReplica, said[d]);
      // Nothing reads a replica's pipeline once its result is made, but the inference check
      // (every op record): its ops go now. Held until the last replica was analysed, every
      // replica's ops lay beside the results as they piled up (10,000 replicas: 40 MB).
      if (!opsReadAfter) pipelines[d] = PipelineTrace{};
    } catch (...) {
      failed[d] = std::current_exception();
    }
  });
  for (size_t d = 0; d < pipelines.size(); ++d) {
    for (std::string& w : said[d]) result.warnings.push_back(std::move(w));
    if (failed[d]) std::rethrow_exception(failed[d]);
  }
}

// Op-level timelines of TP groups (no device kernels, whose NCCL kernels would be matched across
// every rank): each group is folded as soon as it is recognised.
std::vector<std::vector<size_t>> earlyTpGroups(const traces::Run& run, bool kernels) {
  return kernels ? std::vector<std::vector<size_t>>{} : tpGroupsFromMetadata(run);
}

bool anyKernels(const traces::Run& run) {
  return std::any_of(run.ranks.begin(), run.ranks.end(),
                     [](const traces::RankTrace& t) { return t.kernels->size() > 0; });
}

// What the analysis holds once every rank is recognised: the ops, and the TP groups folded so far
// with what their folding said.
struct Recognized {
  std::vector<RankOps> ops;
  std::vector<std::vector<size_t>> groups;
  std::vector<TpGroupResult> folded;
  std::vector<std::string> foldWarnings;
};

AnalysisResult analyzeAfterRecognition(const traces::Run& run, Recognized&& recognized,
                                       const RuleSets& rules, const AnalyzeOptions& options,
                                       traces::Run* releasable);

// The analysis, in the order the data flows: recognise ops (or infer them from the p2p traffic),
// the topology, comm matching and clock alignment, each replica's pipeline, the job across
// replicas. With `releasable`, recognition frees the ranges it has turned into ops.
AnalysisResult analyze(const traces::Run& run, const AnalyzeOptions& options,
                       traces::Run* releasable) {
  const RuleSets rules(options.ruleFiles);
  Recognized r;
  r.groups = earlyTpGroups(run, anyKernels(run));
  r.ops =
      recognizeAll(run, rules.all, options.threads, r.groups, r.folded, r.foldWarnings, releasable);
  return analyzeAfterRecognition(run, std::move(r), rules, options, releasable);
}

// Everything after recognition; it reads of the run only what keepForAnalysis() keeps (and, for a
// run without recognised ops, the whole run).
AnalysisResult analyzeOps(const traces::Run& run, Recognized&& recognized, const RuleSets& rules,
                          const AnalyzeOptions& options, traces::Run* releasable) {
  std::vector<RankOps>& ops = recognized.ops;
  const std::vector<std::vector<size_t>>& groups = recognized.groups;
  std::vector<TpGroupResult>& foldedGroups = recognized.folded;
  std::vector<std::string>& foldWarnings = recognized.foldWarnings;
  // Nobody labelled the ops: read the pipeline off the NCCL point-to-point traffic.
  P2pInference inferred;
  if (std::none_of(ops.begin(), ops.end(), [](const RankOps& o) { return !o.ops.empty(); })) {
    inferred = inferFromP2p(run, ops);
    if (!inferred.found) return withoutPipeline(run, options, rules, inferred);
  }

  AnalysisResult result = describeRun(run);
  Topology topo = buildTopology(run, ops);
  restoreFoldedMembers(topo, groups);
  describeTopology(topo, ops, inferred, result);

  const PostingOrderPeers byOrder = peersOfUnnamedCalls(run, ops, topo, inferred);
  CommMatches comms = matchComms(run, ops, byOrder.given > 0 ? &byOrder.peerOf : nullptr);
  if (releasable) releaseAfterMatching(*releasable);
  PipelineOptions pipelineOptions;
  pipelineOptions.alignClocks = options.alignClocks;
  pipelineOptions.comms = &comms;
  pipelineOptions.appliedOffsets =
      alignAndSplitComms(comms, ops, options.alignClocks, result.warnings);
  pipelineOptions.firstStep = options.firstStep;
  pipelineOptions.lastStep = options.lastStep;
  if (options.leaveOutWarmupStep) {
    if (const auto warmup = warmupStep(ops, options.firstStep, options.lastStep)) {
      result.warmupStepLeftOut = warmup;
      pipelineOptions.firstStep = *warmup + 1;
    }
  }
  result.clock.enabled = options.alignClocks;
  result.clock.offsets.assign(run.ranks.size(), 0);

  // The ranks of a TP group are one stage: the representative's ops take the group's spans.
  const bool wholeJob = topo.dp > 1 || topo.tp > 1;
  if (!groups.empty()) {
    std::sort(foldedGroups.begin(), foldedGroups.end(), [](const auto& a, const auto& b) {
      return std::pair(a.dp, a.stage) < std::pair(b.dp, b.stage);
    });
    result.job.tpGroups = std::move(foldedGroups);
    for (auto& w : foldWarnings) result.warnings.push_back(std::move(w));
  } else if (topo.tp > 1) {
    result.job.tpGroups = foldTpGroups(topo, run, ops, result.warnings);
  }
  if (releasable) releaseAfterTopology(*releasable);
  // Every replica first: each one's wait at the DP sync is the others' arrival.
  std::vector<PipelineTrace> pipelines;
  pipelines.reserve(topo.ranksOf.size());
  for (size_t replica = 0; replica < topo.ranksOf.size(); ++replica) {
    pipelines.push_back(buildReplica(run, topo, replica, ops, pipelineOptions, result));
  }
  // The comm matches are read only while the pipelines are built, and the ranks' ops, moved
  // into their stages, leave their shells (10,000 ranks: 3.7 MB) and the folded TP members'.
  comms = CommMatches{};
  std::vector<RankOps>().swap(ops);
  std::vector<const PipelineTrace*> all;
  for (const PipelineTrace& pl : pipelines) all.push_back(&pl);
  const std::vector<DpWaits> waits = dpWaitsOf(all);
  // The job's rounds read only the pipelines: done first, they say which replicas a summary
  // lists whole before any replica's result is made. A replica's error still comes first.
  std::exception_ptr jobFailed;
  if (wholeJob) {
    try {
      analyzeJob(pipelines, waits, result.job);
    } catch (...) {
      jobFailed = std::current_exception();
    }
  }
  // Not where ops were inferred: judging the inference reads every replica's ops.
  std::vector<bool> whole;
  if (!options.everyGap && !inferred.found && !jobFailed &&
      pipelines.size() > options.pipelinesListedWhole) {
    whole = replicasListedWhole(result.job, topo.dpRanks, options.pipelinesListedWhole);
  }
  analyzeReplicas(run, pipelines, waits, options.everyGap ? KeptGaps::All : KeptGaps::Listed,
                  inferred.found, whole, options.threads, result);
  if (jobFailed) std::rethrow_exception(jobFailed);
  for (const PipelineResult& pl : result.pipelines) {
    if (result.job.culpritStalls && pl.dpRank == result.job.culpritDp) {
      addStallingPipeline(result.job, pl.culprit);
    }
  }
  if (inferred.found) result.inference = judgeInference(inferred, result.pipelines);
  return result;
}

// Every refusal led by the run (inRun): the user handed a file or a directory and reads which
// (issue 28: every bad input's sentence names its file). JobCoordinator does the same.
AnalysisResult analyzeAfterRecognition(const traces::Run& run, Recognized&& recognized,
                                       const RuleSets& rules, const AnalyzeOptions& options,
                                       traces::Run* releasable) {
  try {
    return analyzeOps(run, std::move(recognized), rules, options, releasable);
  } catch (const AnalysisInputError& e) {
    throw AnalysisInputError(inRun(run.dir.string(), e.what()));
  }
}

}  // namespace

RuleSets::RuleSets(const std::vector<std::filesystem::path>& files) {
  for (const auto& f : files) user.push_back(loadRuleSet(f));
  for (const auto& s : user) all.push_back(&s);
  for (const auto& s : builtinRuleSets()) all.push_back(&s);
}

RankOps recognizeForAnalysis(const traces::RankTrace& trace,
                             const std::vector<const RuleSet*>& sets) {
  RankOps out = recognize(trace, sets);
  if (trace.memory->size() > 0) out.kernelsForMemory = computeKernelsByStart(trace);
  // Every rank's ops are held at once (1024 ranks of a large job): no growth slack.
  out.ops.shrink_to_fit();
  out.comms.shrink_to_fit();
  out.commLaunches.shrink_to_fit();
  out.hostActivity.shrink_to_fit();
  out.hostActivityName.shrink_to_fit();
  out.otherBusy.shrink_to_fit();
  return out;
}

RankOps planningPartOf(const RankOps& ops) {
  RankOps out;
  out.ruleSet = ops.ruleSet;
  out.mbInferred = ops.mbInferred;
  out.stageFromLabels = ops.stageFromLabels;
  out.hasKernels = ops.hasKernels;
  out.steps = ops.steps;
  return out;
}

traces::RankTrace planningTraceOf(const traces::RankTrace& kept) {
  traces::RankTrace out;
  out.file = kept.file;
  out.meta = kept.meta;
  out.strings = kept.strings;
  out.threads = kept.threads;
  out.streams = kept.streams;
  out.devices = kept.devices;
  return out;
}

void keepForAnalysis(traces::RankTrace& t) {
  // The NCCL calls stay for matching; the rest is what releaseAfterMatching() keeps.
  releaseUnreadAfterRecognition(t);
  t.openRanges.reset();
  // Kernels stay only for pairing sends and receives that name no peer by the streams their
  // kernels ran on (posting_order.h): the memory look reads the ops' kernelsForMemory.
  if (!hasUnnamedPointToPoint(t)) t.kernels.reset();
}

AnalysisResult analyzeRecognized(traces::Run&& run, std::vector<RankOps>&& ops, bool kernels,
                                 const AnalyzeOptions& options) {
  if (std::none_of(ops.begin(), ops.end(), [](const RankOps& o) { return !o.ops.empty(); })) {
    throw std::invalid_argument("a run without recognised ops is analysed whole (analyzeRun)");
  }
  const RuleSets rules(options.ruleFiles);
  Recognized r;
  r.ops = std::move(ops);
  r.groups = earlyTpGroups(run, kernels);
  std::vector<std::vector<std::string>> said(r.groups.size());
  for (size_t u = 0; u < r.groups.size(); ++u) {
    if (r.groups[u].size() < 2) continue;
    r.folded.push_back(foldEarly(run, r.ops, r.groups[u], said[u]));
    for (auto& w : said[u]) r.foldWarnings.push_back(std::move(w));
  }
  return analyzeAfterRecognition(run, std::move(r), rules, options, &run);
}

AnalysisResult analyzeRun(const traces::Run& run, const AnalyzeOptions& options) {
  return analyze(run, options, nullptr);
}

AnalysisResult analyzeRun(traces::Run&& run, const AnalyzeOptions& options) {
  return analyze(run, options, &run);
}

}  // namespace bubblescope::analysis
