// Rows built from an analysed run: one group per stage in pipeline order, ops and gaps from the
// analysis, the ideal schedule repeated at every step, detail rows from the raw trace.
#include "gui/model/timeline_model.h"

#include <gtest/gtest.h>

#include "gui/draw/row_layout.h"
#include "gui/model/item_text.h"
#include "tests/gui/viewer_fixtures.h"

namespace bubblescope::gui {
namespace {

using testing::analysedRun;

TEST(TimelineModel, OneGroupPerStageWithItsOpsGapsAndIdealRow) {
  const auto r = analysedRun(true);
  const PipelineRows& p = r->rows();
  ASSERT_EQ(p.stages.size(), 4u);
  const auto& pl = r->pipeline();
  for (size_t s = 0; s < 4; ++s) {
    const StageRows& sr = p.stages[s];
    EXPECT_EQ(sr.stage, static_cast<int>(s));
    ASSERT_EQ(sr.ops.lanes.size(), 1u) << "ops of a stage do not overlap";
    // 1F1B, 8 microbatches, 3 steps: 16 ops a step.
    EXPECT_EQ(sr.ops.lanes[0].size(), 48u);
    for (uint32_t item : sr.ops.lanes[0].item) EXPECT_EQ(pl.ops[item].stage, static_cast<int>(s));
    // The ideal step is drawn again at each of the 3 steps.
    EXPECT_EQ(sr.ideal.events(), 3 * 16u);
    EXPECT_FALSE(sr.gaps.empty());
  }
}

TEST(TimelineModel, IdealRowStartsAtEachStepsStart) {
  const auto r = analysedRun(false);
  const auto& pl = r->pipeline();
  const Track& ghost = r->rows().stages[0].ideal.lanes[0];
  for (size_t k = 0; k < pl.steps.size(); ++k) {
    // Stage 0 starts the ideal step at once: its first ghost op is at the step's start.
    const auto it = std::find(ghost.start.begin(), ghost.start.end(), pl.steps[k].start);
    EXPECT_NE(it, ghost.start.end()) << "step " << k;
  }
}

TEST(TimelineModel, DetailRowsHoldTheRanksStreamsThreadsAndNvtxDepths) {
  const auto r = analysedRun(false, 4);
  const StageRows& sr = r->rows().stages[2];
  std::vector<std::string> labels;
  size_t kernels = 0;
  for (const Row& row : sr.detail) {
    labels.push_back(row.label);
    if (row.kind == RowKind::Stream) kernels += row.events();
  }
  EXPECT_EQ(kernels, r->run.ranks[sr.rank].kernels->size());
  ASSERT_GE(sr.detail.size(), 3u);
  EXPECT_EQ(sr.detail[0].kind, RowKind::Stream);
  EXPECT_EQ(sr.detail[0].label, "rank 2 GPU 0 stream 7");
  bool nvtx = false;
  for (const Row& row : sr.detail) {
    if (row.kind != RowKind::Nvtx) continue;
    nvtx = true;
    // Steps at depth 0 hold the ops at depth 1: two lanes on the main thread.
    if (row.label == "rank 2 NVTX thread 1002") {
      EXPECT_EQ(row.lanes.size(), 2u);
    }
  }
  EXPECT_TRUE(nvtx);
}

TEST(TimelineModel, LaneIdsAreDenseAndResolveBack) {
  const auto r = analysedRun(true);
  const PipelineRows& p = r->rows();
  uint32_t expected = 0;
  for (size_t s = 0; s < p.stages.size(); ++s) {
    for (int row = -1; row >= -2; --row) {
      const Row* rr = rowOf(p.stages[s], row);
      EXPECT_EQ(rr->laneBase, expected);
      expected += static_cast<uint32_t>(rr->lanes.size());
    }
    for (const Row& d : p.stages[s].detail) {
      EXPECT_EQ(d.laneBase, expected);
      expected += static_cast<uint32_t>(d.lanes.size());
    }
  }
  EXPECT_EQ(p.lanes, expected);
  const LaneRef ref = laneRef(p, p.stages[3].detail[0].laneBase);
  EXPECT_EQ(ref.stage, 3);
  EXPECT_EQ(ref.row, 0);
}

TEST(TimelineModel, TransfersAreFoundByTheViewTheyReachInto) {
  const auto r = analysedRun(false);
  const PipelineRows& p = r->rows();
  const auto& all = r->pipeline().transfers;
  ASSERT_FALSE(all.empty());
  const auto& t = all[p.transfers[5]];
  const auto hit = p.visibleTransfers(t.recvEnd - 1, t.recvEnd);
  EXPECT_NE(std::find(hit.begin(), hit.end(), p.transfers[5]), hit.end());
  EXPECT_EQ(p.visibleTransfers(p.extent.start - 1000, p.extent.start).size(), 0u);
  EXPECT_EQ(p.visibleTransfers(p.extent.start, p.extent.end).size(), all.size());
  // Counted in full, only the first few kept (by send start): a zoomed-out frame needs no list.
  std::vector<uint32_t> kept;
  EXPECT_EQ(p.visibleTransfers(p.extent.start, p.extent.end, 3, kept), all.size());
  EXPECT_EQ(kept, std::vector<uint32_t>(p.transfers.begin(), p.transfers.begin() + 3));
  // A transfer whose last moment is the view's start does not reach into it.
  EXPECT_EQ(p.visibleTransfers(t.sendStart - 1, std::max(t.recvEnd, t.sendEnd), 100, kept),
            p.visibleTransfers(t.sendStart - 1, std::max(t.recvEnd, t.sendEnd)).size());
}

TEST(RowLayout, PlacesOnlyRowsInTheViewportAndExpandsStages) {
  const auto r = analysedRun(false);
  const PipelineRows& p = r->rows();
  const RowHeights h;
  const RowLayout all = layoutRows(p, {}, h, 100, 0, 10'000);
  ASSERT_EQ(all.rows.size(), 8u);  // 4 stages x (ops, ideal)
  EXPECT_EQ(all.rows[0].y, 100);
  EXPECT_EQ(all.rows[1].y, 100 + h.ops);
  EXPECT_EQ(all.rows[2].y, 100 + h.ops + h.ideal + h.gap);
  EXPECT_DOUBLE_EQ(all.contentHeight, 4 * (h.ops + h.ideal + h.gap));
  ASSERT_EQ(all.opsY.size(), 4u);
  EXPECT_EQ(all.opsY[1], all.rows[2].y);

  // Stage 1 opened: its detail rows follow its ideal row; later stages move down.
  const RowLayout open = layoutRows(p, {false, true}, h, 0, 0, 10'000);
  EXPECT_EQ(open.rows[4].stage, 1);
  EXPECT_EQ(open.rows[4].row, 0);
  EXPECT_GT(open.opsY[2], all.opsY[2] - 100);

  // Scrolled by a stage group and cut to 30 px: stage 1's op row and ideal row only.
  const double group = h.ops + h.ideal + h.gap;
  const RowLayout cut = layoutRows(p, {}, h, 0, group, 30);
  ASSERT_EQ(cut.rows.size(), 2u);
  EXPECT_EQ(cut.rows[0].stage, 1);
  EXPECT_EQ(cut.rows[0].y, 0);
  EXPECT_EQ(cut.opsY[0], -group);  // off screen, still known for arrows
}

TEST(ItemText, LabelsFitTheirBoxes) {
  const analysis::Op f{analysis::OpKind::F, 5, 0};
  const analysis::Op b1{analysis::OpKind::B, 12, 1};
  EXPECT_EQ(opLabel(f, 100, 7), "F mb=5");
  EXPECT_EQ(opLabel(f, 30, 7), "F5");
  EXPECT_EQ(opLabel(f, 8, 7), "5");
  EXPECT_EQ(opLabel(f, 6, 7), "");
  EXPECT_EQ(opLabel(b1, 200, 7), "B mb=12 ch=1");
  EXPECT_EQ(opLabel(b1, 40, 7), "B12.1");
  EXPECT_EQ(fitLabel("ncclDevKernel_SendRecv", 1000, 7), "ncclDevKernel_SendRecv");
  EXPECT_EQ(fitLabel("ncclDevKernel_SendRecv", 70, 7), "ncclDevK..");  // 10 characters of 7 px
  EXPECT_EQ(fitLabel("ncclDevKernel_SendRecv", 20, 7), "");
}

TEST(ItemText, GapTooltipSaysTheClassesAndTheBlame) {
  const auto r = analysedRun(true);
  const auto& pl = r->pipeline();
  bool found = false;
  for (size_t i = 0; i < pl.gaps.size(); ++i) {
    const auto& g = pl.gaps[i];
    if (g.stage != 2 || g.step != 1 || g.dominant != analysis::IdleClass::OtherStall) continue;
    const std::string tip = gapTooltip(r->rows(), static_cast<uint32_t>(i), pl.steps[1].start);
    EXPECT_NE(tip.find("stall: other"), std::string::npos) << tip;
    EXPECT_NE(tip.find(g.blame.text), std::string::npos) << tip;
    EXPECT_NE(tip.find("F mb=5 on stage 1"), std::string::npos) << tip;
    found = true;
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace bubblescope::gui
