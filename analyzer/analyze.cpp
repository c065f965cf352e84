#include "analyzer/analyze.h"

#include <algorithm>
#include <cstdio>
#include <mutex>

#include "analyzer/comm/comm_match.h"
#include "analyzer/result/errors.h"
#include "analyzer/infer/confidence.h"
#include "analyzer/infer/infer_pipeline.h"
#include "analyzer/inventory/stage_memory.h"
#include "analyzer/pipeline/clock_align.h"
#include "analyzer/pipeline/pipeline_trace.h"
#include "analyzer/pipeline/topology.h"
#include "analyzer/pipeline_analysis.h"
#include "analyzer/recognize/recognizer.h"
#include "analyzer/replicas/job_analysis.h"
#include "analyzer/replicas/tp_groups.h"
#include "analyzer/utilization/utilization.h"
#include "traces/parallel/parallel_for.h"

namespace bubblescope::analysis {
namespace {

// Recognises every rank, `threads` at a time. With `groups` (TP groups of an op-level timeline),
// a group's members are recognised together and folded at once (tp_groups.h), their results
// going to `folded`.
// With `releasable` (the caller gave up the run), a rank whose ranges were recognised as ops
// drops them once recognised: nothing after recognition reads the ranges of a labelled rank, and
// op-level timelines (NDTimeline) are almost nothing but ranges, held twice otherwise.
void releaseRanges(traces::RankTrace& t) {
  t.ranges.forEachColumn([](auto& column) {
    column.clear();
    column.shrink_to_fit();
  });
}

std::vector<RankOps> recognizeAll(const traces::Run& run, const std::vector<const RuleSet*>& sets,
                                  unsigned threads, const std::vector<std::vector<size_t>>& groups,
                                  std::vector<TpGroupResult>& folded,
                                  std::vector<std::string>& warnings, traces::Run* releasable) {
  std::vector<RankOps> out(run.ranks.size());
  const size_t units = groups.empty() ? run.ranks.size() : groups.size();
  std::mutex mutex;
  auto recognizeRank = [&](size_t i) {
    out[i] = recognize(run.ranks[i], sets);
    // Every rank's ops are held at once (1024 ranks of a large job): no growth slack.
    out[i].ops.shrink_to_fit();
    out[i].comms.shrink_to_fit();
    out[i].hostActivity.shrink_to_fit();
    out[i].hostActivityName.shrink_to_fit();
    out[i].otherBusy.shrink_to_fit();
  };
  // Each worker touches only its own ranks' traces.
  auto release = [&](size_t i) {
    if (releasable && !out[i].ops.empty()) releaseRanges(releasable->ranks[i]);
  };
  traces::parallelFor(units, threads, [&](size_t u) {
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
    std::vector<std::string> said;
    TpGroupResult g = foldEarly(run, out, groups[u], said);
    if (releasable) {
      for (size_t i : labelled) releaseRanges(releasable->ranks[i]);
    }
    std::lock_guard lock(mutex);
    folded.push_back(std::move(g));
    for (auto& w : said) warnings.push_back(std::move(w));
  });
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
    return r.kernels.size() + r.memcpys.size() + r.memsets.size() > 0;
  });
}

std::string usWithSign(TimeNs t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.0f µs", static_cast<double>(t) / 1e3);
  return buf;
}

// The analysis; with `releasable`, recognition frees the ranges it has turned into ops.
AnalysisResult analyze(const traces::Run& run, const AnalyzeOptions& options,
                       traces::Run* releasable) {
  std::vector<RuleSet> user;
  for (const auto& f : options.ruleFiles) user.push_back(loadRuleSet(f));
  std::vector<const RuleSet*> sets;
  for (const auto& s : user) sets.push_back(&s);
  for (const auto& s : builtinRuleSets()) sets.push_back(&s);

  // Op-level timelines of TP groups (no device kernels, whose NCCL kernels would be matched
  // across every rank): each group is folded as soon as it is recognised.
  const bool kernels = std::any_of(run.ranks.begin(), run.ranks.end(),
                                   [](const traces::RankTrace& t) { return t.kernels.size() > 0; });
  const std::vector<std::vector<size_t>> groups =
      kernels ? std::vector<std::vector<size_t>>{} : tpGroupsFromMetadata(run);
  std::vector<TpGroupResult> foldedGroups;
  std::vector<std::string> foldWarnings;
  std::vector<RankOps> ops =
      recognizeAll(run, sets, options.threads, groups, foldedGroups, foldWarnings, releasable);
  const bool any =
      std::any_of(ops.begin(), ops.end(), [](const RankOps& o) { return !o.ops.empty(); });
  // Nobody labelled the ops: read the pipeline off the NCCL point-to-point traffic.
  P2pInference inferred;
  if (!any) inferred = inferFromP2p(run, ops);
  if (!any && !inferred.found && options.utilizationWithoutPipeline && hasDeviceWork(run)) {
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
    result.utilization = utilizationOf(run, options.alignClocks);
    result.warnings = inferred.notes;
    result.warnings.push_back("no pipeline: no rule set recognised an op and the NCCL traffic forms "
                              "no pipeline; utilization only (to analyse a pipeline, " +
                              std::string(annotationHint()) + ")");
    return result;
  }
  if (!any && !inferred.found) {
    std::string tried;
    for (const RuleSet* s : sets) tried += (tried.empty() ? "" : ", ") + s->name;
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

  AnalysisResult result;
  result.runDir = run.dir.string();
  result.ranks = static_cast<int>(run.ranks.size());
  // `bubblescope record` keeps the command the user launched; without it, a rank's own.
  std::string launched;
  for (const auto& r : run.ranks) {
    if (auto it = r.meta.extra.find("BUBBLESCOPE_COMMAND");
        launched.empty() && it != r.meta.extra.end()) {
      launched = it->second;
    }
    if (result.command.empty()) result.command = r.meta.command;
    result.droppedEvents += r.meta.droppedTotal();
  }
  if (!launched.empty()) result.command = launched;
  Topology topo = buildTopology(run, ops);
  restoreFoldedMembers(topo, groups);
  result.pp = topo.pp;
  result.dp = topo.dp;
  result.tp = topo.tp;
  result.topologySource = topo.source;
  result.warnings = topo.warnings;
  {
    const size_t first = topo.ranksOf[0][0].front();  // a folded TP group's only ops are here
    result.ruleSet = ops[first].ruleSet;
    result.opsInferred = ops[first].mbInferred;
  }
  if (inferred.found) {
    result.topologySource = "p2p";
    result.ruleSet = "none (ops inferred from p2p traffic)";
    result.opsInferred = false;  // said once, by the inference
    for (const std::string& n : inferred.notes) result.warnings.push_back(n);
  }
  if (result.opsInferred) {
    result.warnings.push_back("the " + result.ruleSet +
                              " labels carry no microbatch ids: ops were numbered by their order");
  }
  if (result.droppedEvents > 0) {
    result.warnings.push_back("the agent dropped " + std::to_string(result.droppedEvents) +
                              " events (its buffers were full): some ops may be missing");
  }

  // NCCL kernels matched across ranks: their ends align the clocks, and their last starts split
  // each into waiting (idle) and transfer.
  const CommMatches comms = matchComms(run, ops);
  std::vector<TimeNs> offsets;
  if (options.alignClocks) offsets = clockOffsetsFromComms(comms, ops);
  for (size_t r = 0; r < offsets.size(); ++r) shiftTimes(ops[r], offsets[r]);
  splitCommKernels(comms, ops);
  // A kernel that cannot be matched is communication whole: say how many, and why.
  if (comms.p2pWithoutPeer > 0) {
    result.warnings.push_back(
        std::to_string(comms.p2pWithoutPeer) +
        " NCCL send/receive call(s) name no peer (an nsys export made without "
        "--include-json=true drops NCCL's payloads): their kernels are counted as communication "
        "whole, the waiting inside them unknown");
  }
  if (const int n = comms.p2pUnmatched - comms.p2pWithoutPeer + comms.collectiveUnmatched;
      n > 0) {
    result.warnings.push_back(std::to_string(n) +
                              " NCCL call(s) have a peer that is not in the run (a rank not "
                              "traced?): counted as communication whole, their waiting unknown");
  }
  if (comms.withoutCall > 0) {
    // Without its call a kernel has no peer: a wait inside it cannot be told from its transfer.
    result.warnings.push_back(std::to_string(comms.withoutCall) +
                              " NCCL kernel(s) are tied to no NCCL call (NCCL not hooked, or its "
                              "ranges not traced): counted as communication whole, the waiting "
                              "inside them unknown");
  }

  result.clock.enabled = options.alignClocks;
  result.clock.offsets.assign(run.ranks.size(), 0);
  PipelineOptions pipelineOptions;
  pipelineOptions.alignClocks = options.alignClocks;
  pipelineOptions.comms = &comms;
  pipelineOptions.appliedOffsets = offsets;
  pipelineOptions.firstStep = options.firstStep;
  pipelineOptions.lastStep = options.lastStep;
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
  std::vector<PipelineTrace> pipelines;  // kept for the job-wide analysis
  for (size_t replica = 0; replica < topo.ranksOf.size(); ++replica) {
    PipelineTrace pl = buildPipeline(topo, replica, ops, pipelineOptions);
    for (const StageTrace& st : pl.stages) {
      result.clock.offsets[st.ranks.front()] = st.clockOffset;
      result.clock.maxCorrection = std::max(result.clock.maxCorrection, std::abs(st.clockOffset));
      if (std::abs(st.clockOffset) >= 1000) {
        result.warnings.push_back(
            "clock skew corrected: rank " + std::to_string(run.ranks[st.ranks.front()].meta.rank) +
            " (stage " + std::to_string(st.stage) + ") shifted by " + usWithSign(st.clockOffset));
      }
    }
    result.pipelines.push_back(analyzePipeline(pl, result.warnings));
    attachFreeMemory(run, pl, result.pipelines.back());
    if (wholeJob) pipelines.push_back(std::move(pl));
  }
  if (wholeJob) analyzeJob(pipelines, result.job);
  if (inferred.found) result.inference = judgeInference(inferred, result.pipelines);
  return result;
}

}  // namespace

AnalysisResult analyzeRun(const traces::Run& run, const AnalyzeOptions& options) {
  return analyze(run, options, nullptr);
}

AnalysisResult analyzeRun(traces::Run&& run, const AnalyzeOptions& options) {
  return analyze(run, options, &run);
}

}  // namespace bubblescope::analysis
