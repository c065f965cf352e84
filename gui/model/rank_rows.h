#pragma once
// A hung run the analysis cannot make a pipeline of (a hang often comes before any step ends, or
// before some ranks wrote a trace): the viewer still shows it, one row per rank in stage order,
// each with its raw trace (NVTX ranges, NCCL calls, kernels) and the hang's marks. This builds the
// stand-in analysis result those rows hang from: stages without ops, steps or gaps.
#include <string>

#include "analyzer/analyze.h"
#include "analyzer/hang/hang.h"
#include "analyzer/result/result.h"
#include "traces/model/trace.h"

namespace bubblescope::gui {

// One pipeline whose stage i is the i-th rank of `report` by (stage, rank); `why` (the analysis'
// own sentence) becomes its warning.
analysis::AnalysisResult oneRowPerRank(const traces::Run& run,
                                       const analysis::hang::HangReport& report,
                                       const std::string& why);

// What the viewer shows of a run: analyzeRun's result or, when that finds no pipeline (or misses
// ranks) in a run `report` says hung, oneRowPerRank. Throws what analyzeRun throws otherwise. A
// run that hung (any verdict but clean or stopped) gets no what-if: its last step is the hang,
// not a step another schedule would run faster; whatIfWithheld says so.
analysis::AnalysisResult analyzeForView(const traces::Run& run,
                                        const analysis::hang::HangReport& report,
                                        const analysis::AnalyzeOptions& options);

}  // namespace bubblescope::gui
