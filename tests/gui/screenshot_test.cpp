// Whole frames of the real window, rendered under Xvfb with Mesa's software GL and read back from
// the PNG: the stage rows show the ops in their kinds' colors and the stall, in its class's
// color, exactly where the run had it; the compare mode draws both runs. Skipped without xvfb-run.
#include <gtest/gtest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>

#include "analyzer/analyze.h"
#include "gui/draw/row_layout.h"
#include "gui/timeline/colors.h"
#include "gui/timeline/frame_geometry.h"
#include "gui/timeline/time_mapping.h"
#include "tests/gui/screenshot_support.h"
#include "tests/gui/viewer_fixtures.h"
#include "tests/support/engine_recording.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "traces/sqlite/run_reader.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::testing {
namespace {

using analysis::IdleClass;
using analysis::OpKind;
using gui::Rgba;

constexpr int kW = 1600, kH = 900;

void writeRun(const traces::Run& run, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  for (const auto& t : run.ranks) {
    traces::writeRankTrace(t, dir / ("rank-0000" + std::to_string(t.meta.rank) + ".sqlite"));
  }
}

// Where the viewer puts a pane's rows and times: the same pure functions it uses.
struct PaneMap {
  gui::TimeMapping m;
  gui::RowLayout layout;
};

PaneMap paneMap(const gui::PipelineRows& rows, int pane, int panes, TimeNs origin, double fromMs,
                double toMs) {
  const gui::FrameGeometry g = gui::frameGeometry(kW, kH, panes, true);
  const gui::PaneGeometry& p = g.panes[pane];
  PaneMap out;
  out.m = gui::TimeMapping{origin + static_cast<TimeNs>(fromMs * 1e6),
                           origin + static_cast<TimeNs>(toMs * 1e6), p.plot.x0, p.plot.w()};
  out.layout = gui::layoutRows(rows, {}, gui::RowHeights{}, p.plot.y0, 0, p.plot.h());
  return out;
}

// Columns of the stage's op row (between `from` and `to` px) holding `color` anywhere in the
// row's height: robust to the labels drawn over the boxes.
std::vector<int> columnsWith(const Image& img, const PaneMap& pm, int stage, Rgba color, int from,
                             int to) {
  std::vector<int> xs;
  const double y0 = pm.layout.opsY[stage], y1 = y0 + pm.layout.opsH;
  for (int x = std::max(from, 0); x < std::min(to, img.w); ++x) {
    for (int y = static_cast<int>(y0); y < static_cast<int>(y1); ++y) {
      if (near(img.at(x, y), color)) {
        xs.push_back(x);
        break;
      }
    }
  }
  return xs;
}

// A real run: the reference engine (1F1B, 4 stages, 8 microbatches, 4 ms ops) recorded by the
// agent, with a 20 ms stall on stage 1 before F mb=5 of step 2. Recorded once per test binary.
struct EngineRun {
  TempDir dir{"bubblescope-viewer"};
  std::filesystem::path run = dir / "run";
  traces::Run trace;
  analysis::AnalysisResult result;
  gui::TimelineModel model;
  TimeNs stallStart = 0, stallEnd = 0;  // the engine's own account (truth.json)
  TimeNs previousOpEnd = 0;             // of stage 1's op before the stall
  int exitCode = -1;
  std::string err;
};

// The model points into the trace: built in place, never moved.
const EngineRun& stalledEngineRun() {
  static EngineRun e;
  static bool recorded = [] {
    const auto p =
        recordEngineRun(e.run.string(), (e.run / "truth.json").string(),
                        {"--schedule", "1f1b", "-p", "4", "-m", "8", "--stall", "1:5:20:2"});
    e.exitCode = p.exitCode;
    e.err = p.err;
    if (p.exitCode != 0) return false;
    // The viewer analyses with the defaults too.
    e.trace = traces::readRun(e.run);
    e.result = analysis::analyzeRun(e.trace);
    e.model = gui::buildTimelineModel(e.trace, e.result);
    const auto truth = nlohmann::json::parse(readFile(e.run / "truth.json"));
    for (const auto& f : truth["stages"][1]["injected"]) {
      if (f["fault"] == "stall") {
        e.stallStart = f["start_ns"].get<TimeNs>();
        e.stallEnd = f["end_ns"].get<TimeNs>();
      }
    }
    for (const auto& op : truth["stages"][1]["ops"]) {
      const auto end = op["end_ns"].get<TimeNs>();
      if (end <= e.stallStart) e.previousOpEnd = std::max(e.previousOpEnd, end);
    }
    return true;
  }();
  (void)recorded;
  return e;
}

int stepIndexOf(const analysis::PipelineResult& pl, int64_t number) {
  for (size_t i = 0; i < pl.steps.size(); ++i) {
    if (pl.steps[i].number == number) return static_cast<int>(i);
  }
  return -1;
}

// Maximal runs [a, b] of consecutive columns.
std::vector<std::pair<int, int>> runsOf(const std::vector<int>& cols) {
  std::vector<std::pair<int, int>> runs;
  for (int x : cols) {
    if (!runs.empty() && runs.back().second == x - 1) {
      runs.back().second = x;
    } else {
      runs.emplace_back(x, x);
    }
  }
  return runs;
}

// The run of consecutive columns holding `x`; {1, 0} when there is none.
std::pair<int, int> runAround(const std::vector<int>& cols, int x) {
  for (const auto& r : runsOf(cols)) {
    if (r.first <= x && x <= r.second) return r;
  }
  return {1, 0};
}

TEST(Screenshot, EngineRunShowsOpColorsAndTheStallWhereTheEngineStalled) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run is not installed";
  const EngineRun& e = stalledEngineRun();
  ASSERT_EQ(e.exitCode, 0) << e.err;
  ASSERT_GT(e.stallEnd, e.stallStart) << "no stall in truth.json";
  const auto& pl = e.result.pipelines.front();
  const int step = stepIndexOf(pl, 2);
  ASSERT_GE(step, 0);
  // The step in view whole, by its own length: on a loaded machine the engine's step outlasts
  // the 200 ms it takes on a quiet one (at load 8 one op fell past a fixed 200 ms window).
  const int rangeEnd = std::max(200, static_cast<int>(pl.steps[step].duration() / 1'000'000) + 10);
  TempDir tmp;
  const auto png = tmp / "view.png";
  const ProcessResult p =
      screenshot({e.run.string(), "--step", "2", "--range=-5:" + std::to_string(rangeEnd), "--size",
                  "1600x900", "--screenshot", png.string()});
  ASSERT_EQ(p.exitCode, 0) << p.err;
  const Image img = readPng(png);
  ASSERT_EQ(img.w, kW);
  ASSERT_EQ(img.h, kH);

  const PaneMap pm = paneMap(e.model.pipelines.front(), 0, 1, pl.steps[step].start, -5, rangeEnd);

  // Every stage's F and BW ops of the step, sampled at their middle near the row's top edge
  // (labels sit in the middle), wear their kind's color.
  int sampled = 0;
  for (const auto& o : pl.ops) {
    if (o.step != step) continue;
    const int x = static_cast<int>(pm.m.x((o.start + o.end) / 2));
    const int y = static_cast<int>(pm.layout.opsY[o.stage]) + 2;
    if (x < pm.m.x0 || x >= pm.m.x0 + pm.m.width) continue;
    ++sampled;
    EXPECT_TRUE(near(img.at(x, y), gui::opColor(o.op.kind)))
        << "stage " << o.stage << " " << engine::label(o.op) << " at " << x << "," << y << ": "
        << hex(img.at(x, y)) << " instead of " << hex(gui::opColor(o.op.kind));
  }
  EXPECT_EQ(sampled, 4 * 16);  // 8 F and 8 BW on each of 4 stages

  // The stall: stage 1's row is in the stall color over the 20 ms the engine slept, solid. (A
  // loaded machine adds sub-millisecond waits of the same class elsewhere: a pixel or two each.)
  const double x0 = pm.m.x(e.stallStart), x1 = pm.m.x(e.stallEnd);
  const Rgba stall = gui::idleColor(IdleClass::OtherStall);
  const auto cols = columnsWith(img, pm, 1, stall, 0, kW);
  const auto [from, to] = runAround(cols, static_cast<int>((x0 + x1) / 2));
  ASSERT_LE(from, to) << "no " << hex(stall) << " on stage 1's row in the middle of the stall";
  // The gap ends when F mb=5 starts, right after the sleep; it began when stage 1's previous op
  // ended, at most a few ms of engine overhead before the sleep.
  EXPECT_NEAR(to, x1, 3);
  EXPECT_LE(from, x0 + 3);
  EXPECT_GE(from, pm.m.x(e.previousOpEnd) - 3);
  // The stages around wait because of it: their gaps are blamed on it and wear its class. Such a
  // gap begins when that stage ran out of work, which a loaded machine can put a millisecond
  // before stage 1 began to sleep, so what holds wherever the machine put it is that every long
  // wait of this class on another stage reaches the stall or follows it: none that long in this
  // step is over before it began.
  const double stepX = pm.m.x(pl.steps[step].start);
  for (int s : {0, 2, 3}) {
    for (const auto& [a, b] : runsOf(columnsWith(img, pm, s, stall, 0, kW))) {
      if (b - a >= 10 && a > stepX) {
        EXPECT_GE(b, x0 - 3) << "stage " << s << ": columns " << a << "-" << b;
      }
    }
  }
}

TEST(Screenshot, CompareModeDrawsBothRunsAlignedAtTheStep) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run is not installed";
  TempDir tmp;
  const auto stalled = analysedRun(true);
  const auto clean = analysedRun(false);
  writeRun(stalled->run, tmp / "a");
  writeRun(clean->run, tmp / "b");
  const auto png = tmp / "compare.png";
  const ProcessResult p =
      screenshot({(tmp / "a").string(), "--compare", (tmp / "b").string(), "--step", "1",
                  "--range=-2:110", "--screenshot", png.string()});
  ASSERT_EQ(p.exitCode, 0) << p.err;
  const Image img = readPng(png);
  ASSERT_EQ(img.w, kW);

  const PaneMap a = paneMap(stalled->rows(), 0, 2, stalled->pipeline().steps[1].start, -2, 110);
  const PaneMap b = paneMap(clean->rows(), 1, 2, clean->pipeline().steps[1].start, -2, 110);
  const Rgba stall = gui::idleColor(IdleClass::OtherStall);
  const TimeNs op = rangeStart(stalled->run.ranks[kStallStage], "F mb=5", kStallStep);
  const int mid = static_cast<int>(a.m.x(op - kStall / 2));
  EXPECT_FALSE(columnsWith(img, a, kStallStage, stall, mid - 5, mid + 5).empty());
  // The clean run, at the same time from the step's start, has no stall.
  EXPECT_TRUE(columnsWith(img, b, kStallStage, stall, 0, kW).empty());
  // Both panes show their F ops.
  for (const PaneMap* pm : {&a, &b}) {
    for (int s = 0; s < 4; ++s) {
      EXPECT_GT(columnsWith(img, *pm, s, gui::opColor(OpKind::F), 0, kW).size(), 20u)
          << "stage " << s;
    }
  }
}

TEST(Screenshot, ExpandedRowsAndRangeOptionsRender) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run is not installed";
  TempDir tmp;
  const auto r = analysedRun(false, 8);
  writeRun(r->run, tmp / "run");
  const auto png = tmp / "expanded.png";
  const ProcessResult p = screenshot(
      {(tmp / "run").string(), "--expand", "--size", "1200x700", "--screenshot", png.string()});
  ASSERT_EQ(p.exitCode, 0) << p.err;
  const Image img = readPng(png);
  EXPECT_EQ(img.w, 1200);
  EXPECT_EQ(img.h, 700);
  // Kernels (grey) and NCCL kernels (slate) are on screen under stage 0.
  size_t kernel = 0, nccl = 0;
  for (int y = 0; y < img.h; ++y) {
    for (int x = 200; x < 800; ++x) {
      kernel += near(img.at(x, y), gui::computeKernelColor());
      nccl += near(img.at(x, y), gui::commKernelColor());
    }
  }
  EXPECT_GT(kernel, 500u);
  EXPECT_GT(nccl, 50u);
}

// stb's file writer ignored write errors: on a full disk (here: a file size limit on the viewer
// alone) it said "wrote", exited 0 and left an empty PNG.
TEST(Screenshot, FullDiskIsAnErrorAndLeavesNoFile) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run is not installed";
  TempDir tmp;
  const auto r = analysedRun(false, 4);
  writeRun(r->run, tmp / "run");
  std::filesystem::create_directory(tmp / "out");
  const auto png = tmp / "out" / "shot.png";
  std::vector<std::string> argv = {"/usr/bin/xvfb-run", "-a", "-s", "-screen 0 1920x1080x24"};
  for (const std::string& a : underFileSizeLimit(
           {BUBBLESCOPE_BIN, "view", (tmp / "run").string(), "--screenshot", png.string()}, 1)) {
    argv.push_back(a);
  }
  ProcessOptions o;
  o.timeout = std::chrono::seconds(90);
  const ProcessResult p = runProcess(argv, o);
  EXPECT_EQ(p.exitCode, 2) << p.err;
  EXPECT_NE(p.err.find(png.string() + ": cannot be written: File too large"), std::string::npos)
      << p.err;
  EXPECT_EQ(p.err.find("wrote"), std::string::npos) << p.err;
  EXPECT_TRUE(std::filesystem::is_empty(tmp / "out"));
}

}  // namespace
}  // namespace bubblescope::testing
