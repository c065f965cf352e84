// Copies told apart by direction: each direction's time alone is the part of the rank's otherBusy
// its copies cover (copies under compute count for nothing, a direction's own overlaps once),
// its bytes those of its copies inside the step windows; ranks add up direction by direction.
#include "analyzer/utilization/copy_traffic.h"

#include <gtest/gtest.h>

namespace bubblescope::analysis {
namespace {

CopySpan copy(TimeNs start, TimeNs end, const char* direction, uint64_t bytes) {
  CopySpan c;
  c.start = start;
  c.end = end;
  c.direction = direction;
  c.bytes = bytes;
  return c;
}

TEST(CopyTraffic, DirectionNamesFollowTheCuptiKinds) {
  using traces::MemcpyKind;
  EXPECT_STREQ(copyDirection(MemcpyKind::HostToDevice), "HtoD");
  EXPECT_STREQ(copyDirection(MemcpyKind::DeviceToHost), "DtoH");
  EXPECT_STREQ(copyDirection(MemcpyKind::DeviceToDevice), "DtoD");
  EXPECT_STREQ(copyDirection(MemcpyKind::PeerToPeer), "PtoP");
  EXPECT_STREQ(copyDirection(MemcpyKind::HostToHost), "HtoH");
  EXPECT_STREQ(copyDirection(MemcpyKind::ArrayToDevice), "array");
  EXPECT_STREQ(copyDirection(MemcpyKind::Unknown), "unknown");
}

TEST(CopyTraffic, EachDirectionGetsTheTimeItHadTheDeviceToItselfAndItsBytes) {
  RankDevice d;
  d.compute = {{0, 10}};
  d.copies = {copy(5, 20, "HtoD", 100),     // 5..10 under compute: 10 alone
              copy(15, 25, "HtoD", 50),     // overlaps the first: 20..25 more
              copy(30, 34, "DtoH", 7),      // 4 alone
              copy(32, 40, "memset", 64)};  // 32..34 beside the DtoH: counts in each
  const RankSplit s = splitRank(d);
  ASSERT_EQ(s.steps.size(), 1u);
  EXPECT_EQ(s.steps[0].split.otherBusy, 15 + 10);  // 10..25, 30..40
  const std::vector<CopyTraffic> t =
      copyTraffic(d.copies, s.copiesAlone, s.steps[0].start, s.steps[0].end);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].direction, "HtoD");
  EXPECT_EQ(t[0].alone, 15);
  EXPECT_EQ(t[0].bytes, 150u);
  EXPECT_EQ(t[0].count, 2);
  EXPECT_EQ(t[1].direction, "memset");
  EXPECT_EQ(t[1].alone, 8);
  EXPECT_EQ(t[2].direction, "DtoH");
  EXPECT_EQ(t[2].alone, 4);
  EXPECT_EQ(t[2].bytes, 7u);
}

TEST(CopyTraffic, CopiesOutsideEveryStepWindowAreLeftOut) {
  RankDevice d;
  d.stepMarkers = {{100, 200}};
  d.stepNumbers = {1};
  d.compute = {{110, 120, 105}};
  d.copies = {copy(10, 30, "HtoD", 1000), copy(120, 130, "HtoD", 10)};
  d.copies[0].launch = 5;
  d.copies[1].launch = 115;
  const RankSplit s = splitRank(d);
  ASSERT_EQ(s.steps.size(), 1u);
  const std::vector<CopyTraffic> t =
      copyTraffic(d.copies, s.copiesAlone, s.steps.front().start, s.steps.back().end);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].alone, 10);
  EXPECT_EQ(t[0].bytes, 10u);
  EXPECT_EQ(t[0].count, 1);
}

TEST(CopyTraffic, RanksAddUpDirectionByDirectionLongestFirst) {
  std::vector<CopyTraffic> total;
  addCopyTraffic(total, {{"DtoD", 30, 300, 3}, {"HtoD", 20, 200, 2}});
  addCopyTraffic(total, {{"HtoD", 25, 250, 1}, {"PtoP", 1, 1, 1}});
  ASSERT_EQ(total.size(), 3u);
  EXPECT_EQ(total[0].direction, "HtoD");
  EXPECT_EQ(total[0].alone, 45);
  EXPECT_EQ(total[0].bytes, 450u);
  EXPECT_EQ(total[0].count, 3);
  EXPECT_EQ(total[1].direction, "DtoD");
  EXPECT_EQ(total[2].direction, "PtoP");
}

}  // namespace
}  // namespace bubblescope::analysis
