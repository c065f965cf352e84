#pragma once
// The analyzer's entry point: a loaded run in, every number of the reports out.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

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
};

// Throws AnalysisInputError (nothing recognised, missing ranks, mixed runs) and
// std::invalid_argument (a bad rule file), each with one sentence.
AnalysisResult analyzeRun(const traces::Run& run, const AnalyzeOptions& options = {});
// The same for a run the caller is done with: each labelled rank's NVTX ranges are freed once
// recognised, so an op-level timeline is not held twice (once as ranges, once as ops).
AnalysisResult analyzeRun(traces::Run&& run, const AnalyzeOptions& options = {});

}  // namespace bubblescope::analysis
