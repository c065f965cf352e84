// Draw records: what a frame would paint, computed without a window. Rows, colors per op kind
// and idle class, labels only where they fit, the ghost row, arrows, folding when zoomed out.
#include "gui/draw/draw_records.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "gui/timeline/frame_geometry.h"
#include "tests/gui/viewer_fixtures.h"

namespace bubblescope::gui {
namespace {

using analysis::IdleClass;
using analysis::OpKind;
using testing::analysedRun;

struct Frame {
  RowLayout layout;
  DrawRecords records;
  TimeMapping m;
};

Frame frame(const testing::AnalysedRun& r, TimeNs from, TimeNs to, std::vector<bool> expanded = {},
            const SearchResult* search = nullptr) {
  Frame f;
  const FrameGeometry g = frameGeometry(1600, 900, 1, true);
  const PaneGeometry& pane = g.panes[0];
  f.m = TimeMapping{from, to, pane.plot.x0, pane.plot.w()};
  f.layout = layoutRows(r.rows(), expanded, RowHeights{}, pane.plot.y0, 0, pane.plot.h());
  buildRecords(r.model, r.rows(), f.layout, f.m, RecordStyle{}, search, f.records);
  return f;
}

const analysis::StepInfo& step(const testing::AnalysedRun& r, int k) {
  return r.pipeline().steps[k];
}

TEST(DrawRecords, OpBoxesWearTheirKindsColorAndSitOnTheirStagesRow) {
  const auto r = analysedRun(false);
  const Frame f = frame(*r, step(*r, 1).start, step(*r, 1).end);
  std::map<int, int> opsPerStage;
  for (const DrawBox& b : f.records.boxes) {
    const PlacedRow& pr = f.layout.rows[b.row];
    if (pr.row != -1 || b.lane == kGapLane) continue;
    const Track& lane = r->rows().stages[pr.stage].ops.lanes[b.lane];
    const auto& op = r->pipeline().ops[lane.item[b.first]];
    EXPECT_EQ(op.stage, pr.stage);
    EXPECT_EQ(b.count, 1u) << "a whole step at 1000 px needs no folding";
    EXPECT_EQ(b.fill, opColor(op.op.kind));
    EXPECT_NEAR(b.x0, f.m.x(op.start), 0.5);
    ++opsPerStage[pr.stage];
  }
  for (int s = 0; s < 4; ++s) EXPECT_EQ(opsPerStage[s], 16) << "stage " << s;
}

TEST(DrawRecords, LabelsOnlyWhereTheyFit) {
  const auto r = analysedRun(false);
  const RecordStyle style;
  for (TimeNs span : {TimeNs{10'000'000}, TimeNs{80'000'000}, TimeNs{600'000'000}}) {
    const Frame f = frame(*r, step(*r, 1).start, step(*r, 1).start + span);
    int labelled = 0;
    for (const DrawBox& b : f.records.boxes) {
      if (b.label.empty()) continue;
      ++labelled;
      EXPECT_LE(static_cast<double>(b.label.size()) * style.charW, b.x1 - b.x0) << b.label;
    }
    if (span == 10'000'000) {
      EXPECT_GT(labelled, 8);
    }
  }
  // Zoomed in on one F op: the full name fits.
  const auto& op = r->pipeline().ops[r->rows().stages[0].ops.lanes[0].item[3]];
  const Frame in = frame(*r, op.start - 100'000, op.end + 100'000);
  bool full = false;
  for (const DrawBox& b : in.records.boxes) full = full || b.label == "F mb=3";
  EXPECT_TRUE(full);
}

TEST(DrawRecords, StallGapHasTheStallColorWhereTheStallWas) {
  const auto r = analysedRun(true);
  const auto& stalled = r->run.ranks[testing::kStallStage];
  const TimeNs opStart = testing::rangeStart(stalled, "F mb=5", testing::kStallStep);
  const Frame f = frame(*r, step(*r, 1).start, step(*r, 1).end);
  bool found = false;
  for (const DrawBox& b : f.records.boxes) {
    const PlacedRow& pr = f.layout.rows[b.row];
    if (b.lane != kGapLane || pr.stage != testing::kStallStage) continue;
    if (b.fill != idleColor(IdleClass::OtherStall)) continue;
    found = true;
    EXPECT_TRUE(b.flags & kBoxIdle);
    EXPECT_NEAR(b.x0, f.m.x(opStart - testing::kStall), 2.0);
    EXPECT_NEAR(b.x1, f.m.x(opStart), 2.0);
    EXPECT_EQ(b.label, "stall: other");
  }
  EXPECT_TRUE(found);
}

TEST(DrawRecords, GhostRowUnderEachStageInFadedOpColors) {
  const auto r = analysedRun(false);
  const Frame f = frame(*r, step(*r, 0).start, step(*r, 0).end);
  std::map<int, int> ghosts;
  for (const DrawBox& b : f.records.boxes) {
    if (!(b.flags & kBoxGhost)) continue;
    const PlacedRow& pr = f.layout.rows[b.row];
    EXPECT_EQ(pr.row, -2);
    EXPECT_TRUE(b.label.empty());
    EXPECT_TRUE(b.fill == ghostColor(OpKind::F) || b.fill == ghostColor(OpKind::BW));
    EXPECT_LT(b.fill >> 24, 0xffu) << "ghosts are translucent";
    ++ghosts[pr.stage];
  }
  for (int s = 0; s < 4; ++s) EXPECT_EQ(ghosts[s], 16) << "stage " << s;
}

TEST(DrawRecords, ArrowsGoFromTheSendersRowToTheReceiversRow) {
  const auto r = analysedRun(false);
  const Frame f = frame(*r, step(*r, 1).start, step(*r, 1).end);
  ASSERT_FALSE(f.records.arrows.empty());
  EXPECT_EQ(f.records.hiddenArrows, 0u);
  for (const DrawArrow& a : f.records.arrows) {
    const auto& t = r->pipeline().transfers[a.transfer];
    const bool down = t.toStage > t.fromStage;
    EXPECT_EQ(a.y0, f.layout.opsY[t.fromStage] + (down ? f.layout.opsH : 0));
    EXPECT_EQ(a.y1, f.layout.opsY[t.toStage] + (down ? 0 : f.layout.opsH));
    EXPECT_LE(a.x0, a.x1);  // data arrives after it is sent
  }
  // Too many on screen: none drawn, all counted.
  RecordStyle few;
  few.maxArrows = 3;
  Frame g = f;
  buildRecords(r->model, r->rows(), g.layout, g.m, few, nullptr, g.records);
  EXPECT_TRUE(g.records.arrows.empty());
  EXPECT_EQ(g.records.hiddenArrows, f.records.arrows.size());
}

TEST(DrawRecords, ZoomedOutRunsFoldAndRecordsStayBoundedByPixels) {
  const auto r = analysedRun(false, 200);  // 200 kernels per op
  std::vector<bool> open(4, true);
  const Interval all = r->rows().extent;
  const Frame f = frame(*r, all.start, all.end, open);
  size_t folded = 0, kernelBoxes = 0;
  for (const DrawBox& b : f.records.boxes) {
    const PlacedRow& pr = f.layout.rows[b.row];
    if (pr.row < 0) continue;
    if (r->rows().stages[pr.stage].detail[pr.row].kind != RowKind::Stream) continue;
    ++kernelBoxes;
    if (b.flags & kBoxFolded) {
      ++folded;
      EXPECT_GT(b.count, 1u);
    }
  }
  EXPECT_GT(folded, 0u);
  // Thousands of kernels per stream, a few hundred boxes at most: pixels, not events.
  EXPECT_LT(kernelBoxes, 4 * 2 * 1000 / 3 + 16);
}

// Zoomed out, op runs fold over the gaps between them. The gaps (and the odd rows' shade) are
// then drawn only where no op box covers them: nothing painted twice, nothing idle lost.
TEST(DrawRecords, IdleAndRowShadeArePaintedOnlyWhereOpsLeaveTheRowUncovered) {
  const auto r = analysedRun(false, 50);
  const Interval all = r->rows().extent;
  const Frame f = frame(*r, all.start, all.end);
  auto overlap = [](const DrawBox& a, double x0, double x1) {
    return std::min<double>(a.x1, x1) - std::max<double>(a.x0, x0);
  };
  size_t gapBoxes = 0, backdrops = 0;
  for (size_t r0 = 0; r0 < f.layout.rows.size(); ++r0) {
    const PlacedRow& pr = f.layout.rows[r0];
    std::vector<const DrawBox*> ops, gaps;
    for (const DrawBox& b : f.records.boxes) {
      if (b.row != r0) continue;
      (b.lane == kGapLane ? gaps : ops).push_back(&b);
    }
    for (const DrawBox* g : gaps) {
      ++gapBoxes;
      for (const DrawBox* o : ops) EXPECT_LE(overlap(*o, g->x0, g->x1), 0.0) << "gap under an op";
    }
    for (const Backdrop& b : f.records.backdrops) {
      if (b.y0 != static_cast<float>(pr.y)) continue;
      ++backdrops;
      EXPECT_EQ(pr.stage % 2, 1) << "only odd stages are shaded";
      for (const DrawBox* o : ops) EXPECT_LE(overlap(*o, b.x0, b.x1), 0.0) << "shade under a box";
    }
    if (pr.row != -1) continue;
    // Every pixel of every gap in view is still idle-colored or under an op box (the last pixel
    // of a wide box is left free to separate it from the next).
    std::vector<LodBox> lod;
    foldVisible(r->rows().stages[pr.stage].gaps, f.m, kMinBoxPx, lod);
    for (const LodBox& g : lod) {
      for (double x = std::ceil(f.m.x(g.start) - 0.5) + 0.5; x + 1 < f.m.x(g.end); x += 1) {
        bool covered = false;
        for (const DrawBox* b : gaps) covered = covered || (x >= b->x0 && x < b->x1);
        for (const DrawBox* b : ops) covered = covered || (x >= b->x0 && x < b->x1 + 1);
        EXPECT_TRUE(covered) << "stage " << pr.stage << " x " << x;
      }
    }
  }
  EXPECT_GT(gapBoxes, 0u);
  EXPECT_GT(backdrops, 0u);
}

TEST(DrawRecords, SearchMatchesAreMarkedEvenInsideFoldedBoxes) {
  const auto r = analysedRun(false, 50);
  std::vector<bool> open(4, true);
  const SearchResult hits = search(r->model, r->rows(), "SENDRECV");
  ASSERT_GT(hits.total, 0u);
  const Interval all = r->rows().extent;
  const Frame f = frame(*r, all.start, all.end, open, &hits);
  size_t marked = 0;
  for (const DrawBox& b : f.records.boxes) {
    if (!(b.flags & kBoxSearchHit)) continue;
    ++marked;
    const PlacedRow& pr = f.layout.rows[b.row];
    ASSERT_GE(pr.row, 0);
    const Row& row = r->rows().stages[pr.stage].detail[pr.row];
    EXPECT_EQ(row.kind, RowKind::Stream);
  }
  EXPECT_GT(marked, 0u);
}

TEST(DrawRecords, StepMarksAreLabelledWithNumberAndDuration) {
  const auto r = analysedRun(false);
  const Interval all = r->rows().extent;
  const Frame f = frame(*r, all.start, all.end);
  ASSERT_EQ(f.records.steps.size(), 3u);
  EXPECT_EQ(f.records.steps[0].label.rfind("step 0  ", 0), 0u) << f.records.steps[0].label;
}

TEST(DrawRecords, BoxAtFindsTheTopmostBox) {
  const auto r = analysedRun(true);
  const Frame f = frame(*r, step(*r, 1).start, step(*r, 1).end);
  for (const DrawBox& b : f.records.boxes) {
    if (b.lane == kGapLane || (b.flags & kBoxGhost)) continue;
    const DrawBox* hit = boxAt(f.records, (b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2);
    ASSERT_NE(hit, nullptr);
    EXPECT_EQ(hit->first, b.first);
    EXPECT_EQ(hit->row, b.row);
  }
  EXPECT_EQ(boxAt(f.records, -100, -100), nullptr);
}

}  // namespace
}  // namespace bubblescope::gui
