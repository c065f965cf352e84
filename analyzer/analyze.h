#pragma once
// The analyzer's entry point: a loaded run in, every number of the reports out.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "analyzer/recognize/recognized.h"
#include "analyzer/recognize/rule_set.h"
#include "analyzer/replicas/listed_replicas.h"
#include "analyzer/result/result.h"
#include "traces/model/trace.h"

namespace bubblescope::analysis {

struct AnalyzeOptions {
  bool alignClocks = true;
  // Only steps whose number is in [firstStep, lastStep] (e.g. to leave warm-up steps out).
  int64_t firstStep = INT64_MIN, lastStep = INT64_MAX;
  // The capture's first step warms up (the allocator, NCCL's connections, first launches): left
  // out of the figures when another step follows it in the range (the CLI's default; --steps
  // keeps what it names). AnalysisResult::warmupStepLeftOut says which.
  bool leaveOutWarmupStep = false;
  std::vector<std::filesystem::path> ruleFiles;  // user rule sets, tried before the built-ins
  unsigned threads = 0;                          // 0 = one per core
  // A run with no pipeline (none labelled, none in its p2p traffic) gets the utilization of
  // every rank (AnalysisResult::utilization) instead of an AnalysisInputError.
  bool utilizationWithoutPipeline = false;
  // Every gap kept whole (PipelineResult::gaps); false: only the gaps a summary report names,
  // the others folded as their steps are classified (pipeline_analysis.h, KeptGaps): most of the
  // memory an op-level timeline of many steps takes.
  bool everyGap = true;
  // Without every gap kept: a job of more DP replicas than this lists this many pipelines whole
  // and the others by their figures only (PipelineResult::summarised, listed_replicas.h).
  size_t pipelinesListedWhole = kPipelinesListedWhole;
};

// Throws AnalysisInputError (nothing recognised, missing ranks, mixed runs) and
// std::invalid_argument (a bad rule file), each with one sentence.
AnalysisResult analyzeRun(const traces::Run& run, const AnalyzeOptions& options = {});
// The same for a run the caller is done with: each labelled rank's NVTX ranges are freed once
// recognised, so an op-level timeline is not held twice (once as ranges, once as ops).
AnalysisResult analyzeRun(traces::Run&& run, const AnalyzeOptions& options = {});

// The same analysis in two parts, for a run whose ranks are read and recognised apart from the
// rest (`analyze` under MPI: each process recognises its share of the rank files and hands on the
// ops and what is left of each trace; one process analyses the job from them). The result is the
// one analyzeRun() gives for the whole run.
// The user's rule sets (loaded here: a bad file is an error before any work), then the built-ins.
// Throws std::invalid_argument for a bad rule file.
struct RuleSets {
  std::vector<RuleSet> user;
  std::vector<const RuleSet*> all;

  explicit RuleSets(const std::vector<std::filesystem::path>& files);
};

// One rank recognised as the analysis does it (growth slack trimmed).
RankOps recognizeForAnalysis(const traces::RankTrace& trace,
                             const std::vector<const RuleSet*>& sets);

// Frees what the analysis reads of a rank's trace no more once it is recognised: all but its
// metadata, strings, devices, NCCL calls and memory samples (and its kernels, where the pairing
// of unnamed sends and receives reads them; the memory look reads RankOps::kernelsForMemory).
void keepForAnalysis(traces::RankTrace& trace);

// What the coordinator of `analyze` under MPI plans the job by before any rank moves
// (owned_analysis.h): of a rank's ops, its rule set and step markers; of its trace, its metadata,
// names, threads, streams and devices. Its NCCL calls and kernels stay with the rank; the
// communicators they used go as its roster (split_matching.h, rosterOf).
RankOps planningPartOf(const RankOps& ops);
traces::RankTrace planningTraceOf(const traces::RankTrace& kept);

// The analysis of a run from its recognised ranks: `ops[i]` recognised from `run.ranks[i]` before
// keepForAnalysis(); `kernels`: whether any rank's trace held kernels then. Some rank must have
// recognised ops (a run without is read off its traffic or its utilization, which need the whole
// run: analyzeRun). Throws as analyzeRun does.
AnalysisResult analyzeRecognized(traces::Run&& run, std::vector<RankOps>&& ops, bool kernels,
                                 const AnalyzeOptions& options);

}  // namespace bubblescope::analysis
