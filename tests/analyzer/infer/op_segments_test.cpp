// Ops read off where compute launches fall between a stage's sends and receives, for the stage
// positions of a 1F1B pipeline (first, middle, last), with the batching torch uses.
#include "analyzer/infer/op_segments.h"

#include <gtest/gtest.h>

#include <string>

namespace bubblescope::analysis {
namespace {

using engine::OpKind;

// A stage's host timeline written as a string: 'k' a kernel launch, the calls as
// a (ActIn), A (ActOut), g (GradIn), G (GradOut), o (other); a space separates nothing.
struct Timeline {
  std::vector<TimeNs> launches;
  std::vector<Cut> cuts;
};

Timeline parse(const std::string& s) {
  Timeline t;
  TimeNs now = 0;
  for (char ch : s) {
    now += 10;
    switch (ch) {
      case 'k':
        t.launches.push_back(now);
        break;
      case 'a':
        t.cuts.push_back({now, CutKind::ActIn});
        break;
      case 'A':
        t.cuts.push_back({now, CutKind::ActOut});
        break;
      case 'g':
        t.cuts.push_back({now, CutKind::GradIn});
        break;
      case 'G':
        t.cuts.push_back({now, CutKind::GradOut});
        break;
      case 'o':
        t.cuts.push_back({now, CutKind::Other});
        break;
      default:
        now -= 10;
    }
  }
  return t;
}

// The ops as "F2 B3 ..." (kind and kernel count).
std::string ops(const Segmentation& s) {
  std::string out;
  for (const SegmentOp& o : s.ops) {
    out += (out.empty() ? "" : " ") +
           std::string(o.kind == OpKind::F    ? "F"
                       : o.kind == OpKind::BW ? "B"
                                              : "?") +
           std::to_string(o.end - o.begin);
  }
  return out;
}

TEST(OpSegments, FirstStageSplitsBackwardThenForwardByItsWarmupCounts) {
  // 2 stages, m = 3: F0 A, F1 {A g}, B0+F2 {A g}, B1 g, B2 o(all-reduce) optimizer.
  const Timeline t = parse("kk A kk Ag kkk kk Ag kkk g kkk o kk");
  const Segmentation s = segmentOps(t.launches, t.cuts, {0, 0});
  EXPECT_EQ(ops(s), "F2 F2 B3 F2 B3 B3");
  EXPECT_EQ(s.kernelsPerOp[0], 2u);
  EXPECT_EQ(s.kernelsPerOp[1], 3u);
  EXPECT_EQ(s.splits, 1);
  EXPECT_EQ(s.splitsGuessed, 0);
  EXPECT_EQ(s.unclassified, 1);  // the optimizer's kernels after the all-reduce
}

TEST(OpSegments, MiddleStageNeedsNoSplit) {
  const Timeline t = parse("a kk Aa kk Ag kkk Ga kk Ag kkk G g kkk G o");
  const Segmentation s = segmentOps(t.launches, t.cuts, {0, 0});
  EXPECT_EQ(ops(s), "F2 F2 B3 F2 B3 B3");
  EXPECT_EQ(s.splits, 0);
}

TEST(OpSegments, LastStageSplitsByTheFallbackCounts) {
  // Every run on the last stage holds a forward and its backward.
  const Timeline t = parse("a kkkkk Ga kkkkk G o");
  const Segmentation guessed = segmentOps(t.launches, t.cuts, {2, 3});
  EXPECT_EQ(ops(guessed), "F2 B3 F2 B3");
  EXPECT_EQ(guessed.splitsGuessed, 2);
  // Without a fallback: halves (the first op gets the smaller half).
  EXPECT_EQ(ops(segmentOps(t.launches, t.cuts, {0, 0})), "F2 B3 F2 B3");
}

TEST(OpSegments, ComputeNoTransferExplainsIsNoOp) {
  const Timeline t = parse("kk o kk o");
  const Segmentation s = segmentOps(t.launches, t.cuts, {0, 0});
  EXPECT_TRUE(s.ops.empty());
  EXPECT_EQ(s.unclassified, 2);
}

}  // namespace
}  // namespace bubblescope::analysis
