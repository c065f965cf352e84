#pragma once
// Analysed runs with known timing for the viewer's tests: the synthetic 4-stage 1F1B job (8
// microbatches, 3 steps), optionally with a 20 ms stall on stage 1 right before F mb=5 of step 1,
// and kernels inside every op on a compute stream plus NCCL kernels for its sends (detail rows).
#include <memory>
#include <string_view>

#include "analyzer/result/result.h"
#include "gui/model/timeline_model.h"
#include "tests/analyzer/synthetic_run.h"

namespace bubblescope::testing {

inline constexpr TimeNs kStall = 20'000'000;
inline constexpr int kStallStage = 1, kStallStep = 1, kStallMb = 5;

struct AnalysedRun {
  traces::Run run;
  analysis::AnalysisResult result;
  gui::TimelineModel model;

  AnalysedRun() = default;
  AnalysedRun(const AnalysedRun&) = delete;
  const analysis::PipelineResult& pipeline() const { return result.pipelines.front(); }
  const gui::PipelineRows& rows() const { return model.pipelines.front(); }
};

SyntheticJob viewerJob(bool stall);
// `kernelsPerOp` compute kernels evenly inside each F/B/BW/W range, and one NCCL kernel per send.
void addKernels(traces::Run& run, int kernelsPerOp);
std::unique_ptr<AnalysedRun> analysedRun(bool stall, int kernelsPerOp = 4);

// The start of the NVTX range named `name` ("F mb=5") in `step` on a rank (ground truth).
TimeNs rangeStart(const traces::RankTrace& t, std::string_view name, int step);

}  // namespace bubblescope::testing
