#include "analyzer/analysis_steps.h"

#include <algorithm>
#include <cstdio>

#include "analyzer/comm/comm_warnings.h"
#include "analyzer/comm/posting_order.h"
#include "analyzer/inventory/activation_size.h"
#include "analyzer/inventory/stage_memory.h"
#include "analyzer/pipeline/clock_align.h"
#include "analyzer/recognize/recognizer.h"
#include "analyzer/replicas/listed_replicas.h"

namespace bubblescope::analysis {
namespace {

std::string usWithSign(TimeNs t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.0f µs", static_cast<double>(t) / 1e3);
  return buf;
}

// What the pairing by posting order did, and how sure it is.
std::string postingOrderWarning(const PostingOrderJudgement& j) {
  return std::to_string(j.calls) + " of " + std::to_string(j.withoutPeer) +
         " NCCL send/receive call(s) that name no peer (an nsys export made without "
         "--include-json=true drops NCCL's payloads) were paired with their neighbours' in "
         "posting order, each by the labelled op it follows or feeds (a forward's output goes to "
         "the next stage, a backward's to the previous): confidence " +
         j.confidence + ": " + std::to_string(j.together) + " of " + std::to_string(j.pairs) +
         " kernel pair(s) ran at the same time once clocks were aligned";
}

// Whether the memory look will read every op record and bubble of the pipeline (the free memory in
// each, the activation size): a stage's rank has device memory samples.
bool memoryLookReadsRecords(const traces::Run& run, const PipelineTrace& pl) {
  return std::any_of(pl.stages.begin(), pl.stages.end(), [&](const StageTrace& st) {
    return !st.ranks.empty() && st.ranks.front() < run.ranks.size() &&
           run.ranks[st.ranks.front()].memory->size() > 0;
  });
}

}  // namespace

bool hasUnnamedPointToPoint(const traces::RankTrace& t) {
  const auto& nc = *t.ncclCalls;
  for (size_t c = 0; c < nc.size(); ++c) {
    if (traces::isPointToPoint(nc.op[c]) && nc.peer[c] < 0) return true;
  }
  return false;
}

AnalysisResult describeRun(const traces::Run& run) {
  AnalysisResult result;
  result.runDir = run.dir.string();
  result.ranks = static_cast<int>(run.ranks.size());
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
  return result;
}

void describeTopology(const Topology& topo, const std::vector<RankOps>& ops,
                      const P2pInference& inferred, AnalysisResult& result) {
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
}

std::vector<TimeNs> alignAndSplitComms(const CommMatches& comms, std::vector<RankOps>& ops,
                                       bool alignClocks, std::vector<std::string>& warnings) {
  std::vector<TimeNs> offsets;
  if (alignClocks) offsets = clockOffsetsFromComms(comms, ops);
  if (comms.p2pByPostingOrder > 0) {
    // Judged on the clocks the pairs give, aligned or not.
    const PostingOrderJudgement j =
        judgePostingOrder(comms, ops, alignClocks ? offsets : clockOffsetsFromComms(comms, ops));
    warnings.push_back(postingOrderWarning(j));
  }
  for (size_t r = 0; r < offsets.size(); ++r) shiftTimes(ops[r], offsets[r]);
  splitCommKernels(comms, ops);
  for (std::string& w : commWarnings(comms)) warnings.push_back(std::move(w));
  return offsets;
}

std::vector<StageOffset> stageOffsetsOf(const PipelineTrace& pl) {
  std::vector<StageOffset> out;
  out.reserve(pl.stages.size());
  for (const StageTrace& st : pl.stages) {
    out.push_back({static_cast<uint32_t>(st.ranks.front()), st.clockOffset});
  }
  return out;
}

void recordOffsets(const std::vector<StageOffset>& offsets, AnalysisResult& result) {
  for (const StageOffset& o : offsets) {
    result.clock.offsets[o.rank] = o.offset;
    result.clock.maxCorrection = std::max(result.clock.maxCorrection, std::abs(o.offset));
  }
}

std::vector<std::string> stageOffsetWarnings(const traces::Run& run, const PipelineTrace& pl) {
  std::vector<std::string> out;
  for (const StageTrace& st : pl.stages) {
    if (std::abs(st.clockOffset) >= 1000) {
      out.push_back("clock skew corrected: rank " +
                    std::to_string(run.ranks[st.ranks.front()].meta.rank) + " (stage " +
                    std::to_string(st.stage) + ") shifted by " + usWithSign(st.clockOffset));
    }
  }
  return out;
}

PipelineResult analyzeReplica(const traces::Run& run, const PipelineTrace& pl, const DpWaits& waits,
                              KeptGaps kept, bool opsReadAfter, bool whole, unsigned threads,
                              std::vector<std::string>& said) {
  const bool everyRecord = opsReadAfter || memoryLookReadsRecords(run, pl);
  PipelineResult analysed = analyzePipeline(pl, said, &waits, kept, everyRecord, threads, whole);
  attachFreeMemory(run, pl, analysed);
  attachActivationSize(run, pl, analysed);
  if (!whole) summarisePipeline(analysed);
  return analysed;
}

}  // namespace bubblescope::analysis
