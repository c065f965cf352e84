// The viewer on a trace shaped as PyTorch's profiler writes it (tests/tracegen): an NCCL kernel
// that spun waiting for its peer is drawn as its wait, in the idle color of the gap it lies in,
// and its transfer, in the communication color (issue 14, point 7); its tooltip says both, and
// from how many members a partial collective's wait comes (issue 27, part 5).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "analyzer/analyze.h"
#include "gui/draw/draw_records.h"
#include "gui/model/item_text.h"
#include "gui/timeline/frame_geometry.h"
#include "tests/support/temp_dir.h"
#include "tests/tracegen/cases.h"
#include "tests/tracegen/execution.h"
#include "tests/tracegen/kineto_stack.h"
#include "traces/import/run_import.h"

namespace bubblescope::gui {
namespace {

using tracegen::JobTimeline;

struct Loaded {
  JobTimeline job;
  traces::import::ImportedRun imported;
  analysis::AnalysisResult result;
  TimelineModel model;
};

std::unique_ptr<Loaded> load(const tracegen::JobSpec& spec, const testing::TempDir& dir) {
  auto out = std::make_unique<Loaded>();
  out->job = tracegen::execute(spec);
  for (int r = 0; r < spec.p; ++r) {
    testing::writeFile(dir / ("rank" + std::to_string(r) + ".pt.trace.json"),
                       tracegen::kinetoRankJson(out->job, r));
  }
  out->imported = traces::import::importRun(traces::import::resolveInputs({dir.path()}));
  out->result = analysis::analyzeRun(out->imported.run);
  out->model = buildTimelineModel(out->imported.run, out->result);
  return out;
}

tracegen::JobSpec commDelay() {
  for (const auto& c : tracegen::standardCases()) {
    if (c.name == "CommDelay") return c.spec;
  }
  ADD_FAILURE() << "no CommDelay case";
  return {};
}

TEST(CommWaitView, SpinningNcclKernelIsDrawnAsItsWaitAndItsTransfer) {
  testing::TempDir dir;
  const auto run = load(commDelay(), dir);
  const analysis::PipelineResult& pl = run->result.pipelines.front();
  ASSERT_FALSE(pl.commWaits.empty()) << "matched NCCL kernels wait on every stage of a 1F1B job";

  // The longest wait, checked against the generator's own kernel: same length, same wait.
  const analysis::CommWait& w = *std::max_element(
      pl.commWaits.begin(), pl.commWaits.end(), [](const auto& a, const auto& b) {
        return a.transferStart - a.start < b.transferStart - b.start;
      });
  const TimeNs wait = w.transferStart - w.start;
  bool inTruth = false;
  for (const tracegen::Kernel& k : run->job.ranks[static_cast<size_t>(w.stage)].kernels) {
    if (k.kind == tracegen::KernelKind::Compute) continue;
    inTruth |= std::llabs((k.end - k.start) - (w.end - w.start)) <= 2'000 &&
               std::llabs((k.transferStart - k.start) - wait) <= 2'000;
  }
  EXPECT_TRUE(inTruth) << "a " << wait << " ns wait that no kernel of the job had";

  // Zoomed so the kernel spans most of the plot, its stage's detail rows open.
  const PipelineRows& rows = run->model.pipelines.front();
  const FrameGeometry g = frameGeometry(1600, 900, 1, true);
  const PaneGeometry& pane = g.panes[0];
  const TimeNs margin = (w.end - w.start) / 10;
  const TimeMapping m{w.start - margin, w.end + margin, pane.plot.x0, pane.plot.w()};
  std::vector<bool> open(rows.stages.size(), false);
  open[static_cast<size_t>(w.stage)] = true;
  const RowLayout layout = layoutRows(rows, open, RowHeights{}, pane.plot.y0, 0, pane.plot.h());
  DrawRecords records;
  buildRecords(run->model, rows, layout, m, RecordStyle{}, nullptr, records);

  const analysis::IdleClass cls = pl.gaps[static_cast<size_t>(w.gap)].dominant;
  const DrawBox* waitBox = nullptr;
  const DrawBox* transferBox = nullptr;
  for (const DrawBox& b : records.boxes) {
    const PlacedRow& pr = layout.rows[b.row];
    if (pr.row < 0 || pr.stage != w.stage) continue;
    const Row& row = rows.stages[static_cast<size_t>(pr.stage)].detail[static_cast<size_t>(pr.row)];
    if (row.kind != RowKind::Stream || row.rank != w.rank) continue;
    const uint32_t item = row.lanes[b.lane].item[b.first];
    if (streamTableOf(item) != StreamTable::Kernel || streamIndexOf(item) != w.kernel) continue;
    (b.fill == commKernelColor() ? transferBox : waitBox) = &b;
  }
  ASSERT_NE(waitBox, nullptr);
  ASSERT_NE(transferBox, nullptr);
  EXPECT_EQ(waitBox->fill, idleColor(cls));
  EXPECT_NEAR(waitBox->x0, m.x(w.start), 0.5);
  EXPECT_NEAR(waitBox->x1, m.x(w.transferStart) - 1, 0.5) << "a pixel left free between the two";
  EXPECT_NEAR(transferBox->x0, m.x(w.transferStart), 0.5);
  EXPECT_NEAR(transferBox->x1, m.x(w.end) - 1, 0.5);
  EXPECT_NE(waitBox->label.find("wait"), std::string::npos) << waitBox->label;

  // The hover text says both parts.
  const PlacedRow& pr = layout.rows[waitBox->row];
  const Row& row = rows.stages[static_cast<size_t>(pr.stage)].detail[static_cast<size_t>(pr.row)];
  const std::string tip = itemTooltip(run->model, rows, row,
                                      row.lanes[waitBox->lane].item[waitBox->first], w.start);
  EXPECT_NE(tip.find("for its peers (idle: " + std::string(analysis::idleClassName(cls))),
            std::string::npos)
      << tip;
}

// A wait inside a collective with members the run does not hold says from how many it comes.
TEST(CommWaitView, TooltipOfAPartialCollectivesWaitSaysHowManyMembersWereTraced) {
  testing::TempDir dir;
  auto run = load(commDelay(), dir);
  analysis::PipelineResult& pl = run->result.pipelines.front();
  ASSERT_FALSE(pl.commWaits.empty());
  analysis::CommWait& w = pl.commWaits.front();
  ASSERT_GE(w.gap, 0);
  w.members = {2, 128};
  run->model = buildTimelineModel(run->imported.run, run->result);
  const PipelineRows& rows = run->model.pipelines.front();
  for (const StageRows& stage : rows.stages) {
    for (const Row& row : stage.detail) {
      if (row.kind != RowKind::Stream || row.rank != w.rank) continue;
      for (const Track& lane : row.lanes) {
        for (const uint32_t item : lane.item) {
          if (streamTableOf(item) != StreamTable::Kernel || streamIndexOf(item) != w.kernel)
            continue;
          const std::string tip = itemTooltip(run->model, rows, row, item, w.start);
          EXPECT_NE(tip.find("then moved data for "), std::string::npos) << tip;
          EXPECT_NE(tip.find("(2 of 128 members traced)"), std::string::npos) << tip;
          return;
        }
      }
    }
  }
  ADD_FAILURE() << "no stream row holds the waiting kernel";
}

TEST(CommWaitView, FoldedKernelBoxesNeverTakeAWaitsColor) {
  testing::TempDir dir;
  const auto run = load(commDelay(), dir);
  const PipelineRows& rows = run->model.pipelines.front();
  const Interval all = rows.extent;
  const FrameGeometry g = frameGeometry(1600, 900, 1, true);
  const PaneGeometry& pane = g.panes[0];
  // The whole run: kernels fold, and a folded box never takes a wait's color.
  const TimeMapping m{all.start, all.end, pane.plot.x0, pane.plot.w()};
  const RowLayout layout = layoutRows(rows, std::vector<bool>(rows.stages.size(), true),
                                      RowHeights{}, pane.plot.y0, 0, pane.plot.h());
  DrawRecords records;
  buildRecords(run->model, rows, layout, m, RecordStyle{}, nullptr, records);
  size_t folded = 0;
  for (const DrawBox& b : records.boxes) {
    const PlacedRow& pr = layout.rows[b.row];
    if (pr.row < 0 || !(b.flags & kBoxFolded)) continue;
    ++folded;
    for (int c = 0; c < analysis::kIdleClasses; ++c)
      EXPECT_NE(b.fill, idleColor(analysis::idleClassAt(c)));
  }
  EXPECT_GT(folded, 0u);
}

}  // namespace
}  // namespace bubblescope::gui
