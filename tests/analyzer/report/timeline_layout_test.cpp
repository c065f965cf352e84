// The timeline's layout: which step is drawn, rows that scale with the number of stages, labels
// only where they fit, narrow ops folded, idle colored by its class, the ideal as a ghost lane.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "analyzer/report/palette.h"
#include "analyzer/report/timeline_layout.h"
#include "tests/analyzer/report/report_fixtures.h"

namespace bubblescope::analysis {
namespace {

using testing::analyzeJob;
using testing::oneF1BJob;

int count(const TimelineLayout& L, BoxKind kind) {
  return static_cast<int>(
      std::count_if(L.boxes.begin(), L.boxes.end(), [&](const auto& b) { return b.kind == kind; }));
}

TEST(TimelineLayout, DrawsTheStepWithTheMostAvoidableIdle) {
  testing::SyntheticJob job = oneF1BJob(4, 8);
  job.stall[{1, 2, 3, engine::OpKind::F}] = 15'000'000;  // step 2 only
  const AnalysisResult r = analyzeJob(job);
  EXPECT_EQ(pickStepToDraw(r.pipelines[0]), 2);
  // Without any avoidable idle, the first step.
  EXPECT_EQ(pickStepToDraw(analyzeJob(oneF1BJob(4, 8)).pipelines[0]), 0);
}

TEST(TimelineLayout, FourStagesGetComfortableLabelledRows) {
  const AnalysisResult r = analyzeJob(oneF1BJob(4, 8, 2));
  const PipelineResult& pl = r.pipelines[0];
  const TimelineLayout L = layoutTimeline(pl, 0, 1400);
  ASSERT_EQ(L.rows.size(), 4u);
  EXPECT_EQ(L.rows[0].label, "stage 0");
  EXPECT_GE(L.rows[0].opHeight, 20);
  // Every op of the step is drawn apart (none is narrow), and labelled.
  const auto ops = std::count_if(pl.ops.begin(), pl.ops.end(), [](auto& o) { return o.step == 0; });
  EXPECT_EQ(count(L, BoxKind::Op), ops);
  EXPECT_EQ(count(L, BoxKind::Ghost), static_cast<int>(pl.idealOps.size()));
  for (const TimelineBox& b : L.boxes) {
    if (b.kind == BoxKind::Op) {
      EXPECT_FALSE(b.label.empty()) << b.tooltip;
    }
  }
  // Boxes stay inside the plot, rows in order.
  for (const TimelineBox& b : L.boxes) {
    EXPECT_GE(b.x, L.plotX0 - 1e-6);
    EXPECT_LE(b.x + b.w, L.plotX1 + 1e-6);
  }
  EXPECT_LT(L.rows[0].y, L.rows[3].y);
  // The slow stage makes the ideal end before the measured one.
  ASSERT_TRUE(L.idealEndX.has_value());
  EXPECT_LT(*L.idealEndX, L.measuredEndX);
}

TEST(TimelineLayout, LabelsOnlyWhereTheyFit) {
  const AnalysisResult r = analyzeJob(oneF1BJob(4, 8, 2));
  // 300 px: most ops are too narrow for "F12"; whatever label remains must fit its box.
  const TimelineLayout L = layoutTimeline(r.pipelines[0], 0, 300);
  int labelled = 0, bare = 0;
  for (const TimelineBox& b : L.boxes) {
    if (b.kind != BoxKind::Op) continue;
    if (b.label.empty()) {
      ++bare;
      continue;
    }
    ++labelled;
    const double font = std::min(11.0, L.rows[0].opHeight * 0.55);
    EXPECT_LE(static_cast<double>(b.label.size()) * font * 0.6 + 4, b.w) << b.label;
  }
  EXPECT_GT(bare, 0);
  EXPECT_GT(labelled, 0);
}

TEST(TimelineLayout, SixtyFourStagesStayLegible) {
  const AnalysisResult r = analyzeJob(oneF1BJob(64, 64, 10));
  const PipelineResult& pl = r.pipelines[0];
  const TimelineLayout L = layoutTimeline(pl, pickStepToDraw(pl), 1400);
  ASSERT_EQ(L.rows.size(), 64u);
  // Thin rows with short labels, the whole plot within a screen.
  EXPECT_EQ(L.rows[63].label, "63");
  EXPECT_GE(L.rows[0].y + 11, L.rows[1].y);  // at least 11 px per row
  EXPECT_LE(L.plotY1 - L.plotY0, 64 * 11 + 1);
  EXPECT_GE(L.rows[0].opHeight, 6);
  EXPECT_LE(L.height, 900);
  // Every op is accounted for, folded or not, and nothing is drawn narrower than kMinBoxPx.
  const auto ops =
      std::count_if(pl.ops.begin(), pl.ops.end(), [&](auto& o) { return o.step == L.step; });
  int drawn = 0;
  for (const TimelineBox& b : L.boxes) {
    if (b.kind == BoxKind::Op) {
      drawn += b.folded;
      EXPECT_GE(b.w, kMinBoxPx - 1e-9);
    }
  }
  EXPECT_EQ(drawn, ops);
}

TEST(TimelineLayout, NarrowOpsFoldIntoOneBox) {
  const AnalysisResult r = analyzeJob(oneF1BJob(8, 64));
  const TimelineLayout L = layoutTimeline(r.pipelines[0], 0, 200);
  int folded = 0;
  for (const TimelineBox& b : L.boxes) {
    if (b.kind == BoxKind::Op && b.folded > 1) {
      ++folded;
      EXPECT_NE(b.tooltip.find("ops"), std::string::npos) << b.tooltip;
      EXPECT_TRUE(b.label.empty());
    }
  }
  EXPECT_GT(folded, 0);
}

TEST(TimelineLayout, IdleIsColoredByItsDominantClassAndLegendNamesIt) {
  testing::SyntheticJob job = oneF1BJob(4, 8);
  job.stall[{1, 0, 3, engine::OpKind::F}] = 10'000'000;
  const AnalysisResult r = analyzeJob(job);
  const PipelineResult& pl = r.pipelines[0];
  const TimelineLayout L = layoutTimeline(pl, 0, 1400);
  std::set<std::string> legend;
  for (const auto& item : L.legend) legend.insert(item.text);
  EXPECT_TRUE(legend.count("F forward"));
  EXPECT_TRUE(legend.count("BW backward"));
  EXPECT_TRUE(legend.count("idle: warm-up bubble"));
  EXPECT_TRUE(legend.count("idle: stall: other"));
  double widest = 0;
  for (const TimelineBox& b : L.boxes) {
    if (b.kind == BoxKind::Idle && b.row == 1 && b.fill == idleClassRgb(IdleClass::OtherStall)) {
      EXPECT_NE(b.tooltip.find("stall: other"), std::string::npos) << b.tooltip;
      widest = std::max(widest, b.w);
    }
  }
  EXPECT_GT(widest, 100);  // the 10 ms stall in a ~80 ms step, 1400 px wide
}

}  // namespace
}  // namespace bubblescope::analysis
