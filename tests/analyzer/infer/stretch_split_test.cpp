// Cutting stretches of compute into the ops a reading put there, and laying a stage's calls out
// in groups and stretches: on the host and on the device.
#include "analyzer/infer/stretch_split.h"

#include <gtest/gtest.h>

#include "analyzer/infer/v_stage.h"

namespace bubblescope::analysis {
namespace {

using engine::OpKind;

TEST(StretchSplit, CostsAreLearnedAloneThenBesideWhatIsKnown) {
  // F0 alone takes 4, B0 alone 8; W0 is only ever beside a B0: 12 - 8.
  const std::vector<StretchSpan> spans = {{0, 4}, {10, 18}, {20, 32}, {40, 44}};
  const std::vector<VOp> ops = {{OpKind::F, 0, 0},
                                {OpKind::B, 0, 1},
                                {OpKind::B, 0, 2},
                                {OpKind::W, 0, 2},
                                {OpKind::F, 0, 3}};
  const OpCosts costs = learnCosts(spans, ops);
  EXPECT_EQ(costs[typeOf(OpKind::F, 0)], 4);
  EXPECT_EQ(costs[typeOf(OpKind::B, 0)], 8);
  EXPECT_EQ(costs[typeOf(OpKind::W, 0)], 4);
  EXPECT_EQ(costs[typeOf(OpKind::F, 1)], 0);
  const auto split = splitStretches(spans, ops, costs, 0);
  ASSERT_EQ(split.size(), 5u);
  EXPECT_EQ(split[2].begin, 20);
  EXPECT_EQ(split[2].end, 28);  // the B: 8 of the 12
  EXPECT_EQ(split[3].begin, 28);
  EXPECT_EQ(split[3].end, 32);
}

TEST(StretchSplit, AStretchNoTransferOpenedKeepsOnlyWhatItsOpsCost) {
  // The first forward after the optimizer: 10 units of which the forward takes 4, at the end.
  const std::vector<StretchSpan> spans = {{0, 4}, {10, 20, false}};
  const std::vector<VOp> ops = {{OpKind::F, 0, 0}, {OpKind::F, 0, 1}};
  const auto split = splitStretches(spans, ops, learnCosts(spans, ops), 1);
  ASSERT_EQ(split.size(), 2u);
  EXPECT_EQ(split[1].begin, 16);
  EXPECT_EQ(split[1].end, 20);
}

TEST(StretchSplit, UnknownCostsShareEvenlyAndEveryOpKeepsALaunch) {
  const std::vector<StretchSpan> spans = {{0, 3}};
  const std::vector<VOp> ops = {{OpKind::F, 1, 0}, {OpKind::B, 1, 0}, {OpKind::W, 1, 0}};
  const auto split = splitStretches(spans, ops, OpCosts{}, 0);
  ASSERT_EQ(split.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(split[i].begin, static_cast<int64_t>(i));
    EXPECT_EQ(split[i].end, static_cast<int64_t>(i + 1));
  }
}

TEST(VStage, DeviceCallsWithNoLaunchBetweenArePostedTogether) {
  // Launches at 10, 11 (an op), 20, 21 (the next); a send at 15 and a receive at 16, then a send
  // at 25 and the step's all-reduce at 30, with no launch between those two.
  const std::vector<TimeNs> launches = {10, 11, 20, 21};
  const VStage st = vStageOnDevice({{16, 17, CutKind::GradIn, 1},
                                    {15, 16, CutKind::ActOut, 0},
                                    {25, 26, CutKind::ActOut, 2},
                                    {30, 31, CutKind::Other, 3}},
                                   launches);
  ASSERT_EQ(st.calls.size(), 3u);  // the all-reduce bounds a stretch but carries nothing
  EXPECT_EQ(st.calls[0].kind, CutKind::ActOut);  // a group's send before its receive
  EXPECT_EQ(st.calls[1].kind, CutKind::GradIn);
  EXPECT_EQ(st.calls[0].group, st.calls[1].group);
  EXPECT_EQ(st.calls[2].group, 1);
  EXPECT_EQ(st.rows, (std::vector<int32_t>{0, 1, 2}));
  ASSERT_EQ(st.spans.size(), 3u);  // no launch between the last send and the all-reduce
  EXPECT_EQ(st.spans[0].begin, 0);
  EXPECT_EQ(st.spans[0].end, 2);
  EXPECT_FALSE(st.spans[0].openedByTransfer);
  EXPECT_EQ(st.spans[1].begin, 2);
  EXPECT_EQ(st.spans[1].end, 4);
  EXPECT_TRUE(st.spans[1].openedByTransfer);
  EXPECT_EQ(st.spans[2].begin, 4);
  EXPECT_EQ(st.spans[2].end, 4);
}

TEST(VStage, HostCallsCloserThanTheGapArePostedTogether) {
  const VStage st = vStageOnHost({{100, 101, CutKind::ActOut, 0},
                                  {105, 106, CutKind::ActIn, 1},
                                  {500, 501, CutKind::GradOut, 2}},
                                 50);
  ASSERT_EQ(st.calls.size(), 3u);
  EXPECT_EQ(st.calls[0].group, 0);
  EXPECT_EQ(st.calls[1].group, 0);
  EXPECT_EQ(st.calls[2].group, 1);
  ASSERT_EQ(st.spans.size(), 3u);
  EXPECT_EQ(st.spans[1].begin, 106);
  EXPECT_EQ(st.spans[1].end, 500);
  EXPECT_TRUE(st.spans[1].openedByTransfer);
  EXPECT_EQ(st.spans[0].end - st.spans[0].begin, 0);  // nothing bounds the time before
  EXPECT_EQ(st.spans[2].end - st.spans[2].begin, 0);
}

}  // namespace
}  // namespace bubblescope::analysis
