#pragma once
// Real hung runs for the viewer's tests: the reference engine recorded by the agent (the suite's
// standard recording, tests/support/engine_recording.h) and stopped by its 2 s watchdog, then
// loaded as `bubblescope view` loads it: the hang report, the analysis (a row per rank when it
// finds no pipeline), the rows and the hang's marks. Each is recorded once per test binary.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "analyzer/hang/hang.h"
#include "analyzer/result/result.h"
#include "gui/model/hang_overlay.h"
#include "gui/model/timeline_model.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "traces/model/trace.h"

namespace bubblescope::testing {

struct ViewedRun {
  TempDir dir{"bubblescope-hang-view"};
  std::filesystem::path run = dir / "run";
  ProcessResult record;
  nlohmann::json truth;  // the engine's own account of what it ran and where it stopped
  traces::Run trace;
  analysis::hang::HangReport report;
  analysis::AnalysisResult result;
  gui::TimelineModel model;  // points into trace and result: a ViewedRun never moves
  gui::HangOverlay overlay;

  ViewedRun() = default;
  ViewedRun(const ViewedRun&) = delete;
  const gui::PipelineRows& rows() const { return model.pipelines.front(); }
  const gui::PipelineHang& hang() const { return overlay.pipelines.front(); }
};

// 1F1B, 4 stages, 8 microbatches, `--mismatch 1:4`: stages 1 and 2 deadlock in step 0.
const ViewedRun& mismatchRun();
// `--hang 1:0`: stage 1 stops before its first op, so no step completes and no pipeline is
// recognised; stage 0 waits on it.
const ViewedRun& hangBeforeAnyOpRun();
// `--crash 2:3`: stage 2 aborts before F mb=3; the others end as it vanishes.
const ViewedRun& crashRun();
// 1F1B, 2 stages, 4 microbatches, nothing wrong.
const ViewedRun& cleanRun();

}  // namespace bubblescope::testing
