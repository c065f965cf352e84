// Ops of a stage that ran no device work, read off its host time between point-to-point calls,
// for the stage positions of 1F1B (first, middle, last), with a data loader and an optimizer
// between ops.
#include "analyzer/infer/host_segments.h"

#include <gtest/gtest.h>

#include <string>

namespace bubblescope::analysis {
namespace {

using engine::OpKind;

constexpr TimeNs kUnit = 1000;      // one character of a timeline
constexpr TimeNs kGap = kUnit / 2;  // calls closer than this were posted together

// A stage's posting thread written as a string, one character a time unit: '.' host work, 'd' a
// named host range (a data loader); calls a (ActIn), A (ActOut), g (GradIn), G (GradOut),
// o (other: a collective). Adjacent calls were posted together.
struct Timeline {
  std::vector<HostCall> calls;
  std::vector<Interval> named;
};

Timeline parse(const std::string& s) {
  Timeline t;
  for (size_t i = 0; i < s.size(); ++i) {
    const TimeNs at = static_cast<TimeNs>(i) * kUnit;
    const Interval unit{at, at + kUnit};
    auto call = [&](CutKind k) { t.calls.push_back({unit.start, unit.end, k}); };
    switch (s[i]) {
      case 'a':
        call(CutKind::ActIn);
        break;
      case 'A':
        call(CutKind::ActOut);
        break;
      case 'g':
        call(CutKind::GradIn);
        break;
      case 'G':
        call(CutKind::GradOut);
        break;
      case 'o':
        call(CutKind::Other);
        break;
      case 'd':
        if (!t.named.empty() && t.named.back().end == at)
          t.named.back().end = unit.end;
        else
          t.named.push_back(unit);
        break;
      default:
        break;
    }
  }
  return t;
}

HostSegmentation segment(const std::string& s, std::array<TimeNs, 2> fallback = {0, 0}) {
  Timeline t = parse(s);
  return segmentHostTime(t.calls, t.named, fallback, kGap);
}

// "F 1-5": kind, then the op's span in units.
std::string describe(const HostSegmentation& seg) {
  std::string out;
  for (const HostOp& o : seg.ops) {
    if (!out.empty()) out += ", ";
    out += std::string(o.kind == OpKind::F ? "F " : "BW ") + std::to_string(o.start / kUnit) + "-" +
           std::to_string(o.end / kUnit);
  }
  return out;
}

TEST(HostSegments, MiddleStageOpsAreTheHostTimeBetweenTheirReceiveAndSend) {
  // Receive, forward, send + next receive posted together, backward, send.
  const auto seg = segment("a....Ag........G");
  EXPECT_EQ(describe(seg), "F 1-5, BW 7-15");
  EXPECT_EQ(seg.stretches, 2);
  EXPECT_EQ(seg.splits, 0);
  EXPECT_EQ(seg.nsPerOp[0], 4 * kUnit);
  EXPECT_EQ(seg.nsPerOp[1], 8 * kUnit);
}

TEST(HostSegments, FirstStageSplitsBackwardThenForwardByItsOwnDurations) {
  // Stage 0 of 1F1B: forwards, then a backward runs straight into the next forward, and the
  // last backwards end in receives.
  const auto seg = segment("o....A....Ag............Ag........g........o");
  EXPECT_EQ(describe(seg), "F 1-5, F 6-10, BW 12-20, F 20-24, BW 26-34, BW 35-43");
  EXPECT_EQ(seg.splits, 1);
  EXPECT_EQ(seg.splitsGuessed, 0);
}

TEST(HostSegments, LastStageSplitsByANeighboursProportionsElseInHalf) {
  // The last stage has no stretch of one op: forward and backward always run back to back.
  const std::string last = "a............Ga............G";
  const auto byNeighbour = segment(last, {2 * kUnit, 4 * kUnit});
  EXPECT_EQ(describe(byNeighbour), "F 1-5, BW 5-13, F 15-19, BW 19-27");
  EXPECT_EQ(byNeighbour.splits, 2);
  EXPECT_EQ(byNeighbour.splitsGuessed, 2);
  EXPECT_EQ(describe(segment(last)), "F 1-7, BW 7-13, F 15-21, BW 21-27");
}

TEST(HostSegments, ADataLoaderBeforeAnOpIsNotTheOp) {
  // Forwards take 4 units here; the third stretch is 3 units longer, and a named range at its
  // start accounts for them.
  EXPECT_EQ(describe(segment("a....Aa....Aaddd....A")), "F 1-5, F 7-11, F 16-20");
  // Between the two ops of a split stretch it is where they split: neither op's time.
  EXPECT_EQ(describe(segment("a....Ag........g........g........dd....A")),
            "F 1-5, BW 7-15, BW 16-24, BW 25-33, F 35-39");
}

TEST(HostSegments, NamedRangesInAStretchOfTheUsualLengthAreTheOpsOwn) {
  // A CPU job's library calls (aten ops, say) inside every forward: nothing is cut off.
  EXPECT_EQ(describe(segment("a.dd.Aa.dd.Aadd..A")), "F 1-5, F 7-11, F 13-17");
}

TEST(HostSegments, WorkAfterACollectiveBeforeTheFirstOpIsOtherWork) {
  // The optimizer (2 units) after the gradient sync, then stage 0's first forward.
  const auto seg = segment("o......A....A....A");
  EXPECT_EQ(describe(seg), "F 3-7, F 8-12, F 13-17");
  ASSERT_EQ(seg.other.size(), 1u);
  EXPECT_EQ(seg.other[0].start, 1 * kUnit);
  EXPECT_EQ(seg.other[0].end, 3 * kUnit);
}

TEST(HostSegments, HostTimeNoTransferExplainsIsOtherWorkNotAnOp) {
  // After a send, before the next receive: the optimizer, say.
  const auto seg = segment("a....A...a....A");
  EXPECT_EQ(describe(seg), "F 1-5, F 10-14");
  EXPECT_EQ(seg.unclassified, 1);
  ASSERT_EQ(seg.other.size(), 1u);
  EXPECT_EQ(seg.other[0].start, 6 * kUnit);
  EXPECT_EQ(seg.other[0].end, 9 * kUnit);
}

TEST(HostSegments, NoCallsNoOps) {
  EXPECT_TRUE(segment("....").ops.empty());
  EXPECT_TRUE(segment("a").ops.empty());
}

}  // namespace
}  // namespace bubblescope::analysis
