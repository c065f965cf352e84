#include "analyzer/analyze.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <thread>

#include "analyzer/comm/comm_match.h"
#include "analyzer/errors.h"
#include "analyzer/infer/confidence.h"
#include "analyzer/infer/infer_pipeline.h"
#include "analyzer/pipeline/clock_align.h"
#include "analyzer/pipeline/pipeline_trace.h"
#include "analyzer/pipeline/topology.h"
#include "analyzer/pipeline_analysis.h"
#include "analyzer/recognize/recognizer.h"
#include "analyzer/utilization/utilization.h"

namespace bubblescope::analysis {
namespace {

std::vector<RankOps> recognizeAll(const traces::Run& run, const std::vector<const RuleSet*>& sets,
                                  unsigned threads) {
  std::vector<RankOps> out(run.ranks.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < run.ranks.size();)
      out[i] = recognize(run.ranks[i], sets);
  };
  threads = std::clamp<unsigned>(threads ? threads : std::thread::hardware_concurrency(), 1,
                                 static_cast<unsigned>(std::max<size_t>(1, run.ranks.size())));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  return out;
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

}  // namespace

AnalysisResult analyzeRun(const traces::Run& run, const AnalyzeOptions& options) {
  std::vector<RuleSet> user;
  for (const auto& f : options.ruleFiles) user.push_back(loadRuleSet(f));
  std::vector<const RuleSet*> sets;
  for (const auto& s : user) sets.push_back(&s);
  for (const auto& s : builtinRuleSets()) sets.push_back(&s);

  std::vector<RankOps> ops = recognizeAll(run, sets, options.threads);
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
    throw AnalysisInputError(run.dir.string() + ": no pipeline ops recognised in " +
                             std::to_string(run.ranks.size()) +
                             " trace(s) (rule sets tried: " + tried + "); " + annotationHint());
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
  const Topology topo = buildTopology(run, ops);
  result.pp = topo.pp;
  result.dp = topo.dp;
  result.tp = topo.tp;
  result.topologySource = topo.source;
  result.warnings = topo.warnings;
  for (size_t i : topo.ranksOf[0][0]) {
    result.ruleSet = ops[i].ruleSet;
    result.opsInferred = ops[i].mbInferred;
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
  if (const int n = comms.p2pUnmatched + comms.collectiveUnmatched; n > 0) {
    result.warnings.push_back(std::to_string(n) +
                              " NCCL kernel(s) have a peer that is not in the run (a rank not "
                              "traced?): counted as communication whole, their waiting unknown");
  }

  result.clock.enabled = options.alignClocks;
  result.clock.offsets.assign(run.ranks.size(), 0);
  PipelineOptions pipelineOptions;
  pipelineOptions.alignClocks = options.alignClocks;
  pipelineOptions.comms = &comms;
  pipelineOptions.appliedOffsets = offsets;
  pipelineOptions.firstStep = options.firstStep;
  pipelineOptions.lastStep = options.lastStep;
  for (size_t replica = 0; replica < topo.ranksOf.size(); ++replica) {
    const PipelineTrace pl = buildPipeline(topo, replica, ops, pipelineOptions);
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
  }
  if (inferred.found) result.inference = judgeInference(inferred, result.pipelines);
  return result;
}

}  // namespace bubblescope::analysis
