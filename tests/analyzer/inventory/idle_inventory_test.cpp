// The inventory of idle intervals, on intervals written by hand: lengths into buckets, shares of
// idle by length, steadiness across steps, and free memory over the bubbles of 1 ms or more.
#include <gtest/gtest.h>

#include "analyzer/inventory/idle_inventory.h"

namespace bubblescope::analysis {
namespace {

constexpr TimeNs kMs = 1'000'000;
constexpr int64_t kGiB = int64_t{1} << 30;

TEST(IdleInventory, LengthsFallIntoBucketsAndShares) {
  const std::vector<IdleInterval> in = {{0, kMs / 2}, {0, 2 * kMs}, {0, 7 * kMs}, {0, 60 * kMs}};
  const IdleInventory inv = idleInventory(in, 1, MemoryBasis::NotRecorded, 0);
  EXPECT_EQ(inv.bubbles, 4);
  EXPECT_EQ(inv.idle, kMs / 2 + 69 * kMs);
  EXPECT_EQ(inv.largest, 60 * kMs);
  std::vector<int> counts;
  for (const BubbleBucket& b : inv.histogram) counts.push_back(b.count);
  EXPECT_EQ(counts, (std::vector<int>{1, 1, 1, 0, 1}));
  EXPECT_NEAR(inv.shareAtLeast[0], 69.0 / 69.5, 1e-9);
  EXPECT_NEAR(inv.shareAtLeast[3], 60.0 / 69.5, 1e-9);
  EXPECT_EQ(inv.steadyNote, "one step: cannot tell");
  EXPECT_FALSE(inv.freeMemoryKnown());
  EXPECT_EQ(inv.freeMemoryNote, "not recorded (the trace has no device memory events)");
}

TEST(IdleInventory, SteadyWhenEveryStepHasTheSameBubbles) {
  const std::vector<IdleInterval> same = {{0, 3 * kMs}, {1, 3 * kMs}, {2, 3 * kMs}};
  EXPECT_TRUE(idleInventory(same, 3, MemoryBasis::NotRecorded, 0).steady);
  const std::vector<IdleInterval> extra = {{0, 3 * kMs}, {1, 3 * kMs}, {1, 2 * kMs}, {2, 3 * kMs}};
  const IdleInventory inv = idleInventory(extra, 3, MemoryBasis::NotRecorded, 0);
  EXPECT_FALSE(inv.steady);
  EXPECT_EQ(inv.steadyNote, "bubbles of 1 ms or more differ in number between steps");
}

TEST(IdleInventory, FreeMemoryOverBubblesOfAtLeastOneMs) {
  // The 0.5 ms bubble's 1 GiB is left out: no fill job fits there.
  const std::vector<IdleInterval> in = {{0, kMs / 2, 1 * kGiB},
                                        {0, 2 * kMs, 30 * kGiB},
                                        {0, 3 * kMs, 10 * kGiB},
                                        {0, 4 * kMs, 20 * kGiB},
                                        {0, 5 * kMs, traces::kBytesUnknown}};
  const IdleInventory inv = idleInventory(in, 1, MemoryBasis::Reserved, 80 * kGiB);
  EXPECT_TRUE(inv.freeMemoryKnown());
  EXPECT_EQ(inv.freeMemoryBubbles, 3);
  EXPECT_EQ(inv.freeMemoryMin, 10 * kGiB);
  EXPECT_EQ(inv.freeMemoryMedian, 20 * kGiB);
  EXPECT_EQ(inv.deviceMemory, static_cast<uint64_t>(80 * kGiB));

  const IdleInventory noCapacity = idleInventory(in, 1, MemoryBasis::Reserved, 0);
  EXPECT_FALSE(noCapacity.freeMemoryKnown());
  EXPECT_EQ(noCapacity.freeMemoryNote, "device capacity not recorded");
}

TEST(IdleInventory, ATallyGatheredOneIntervalAtATimeIsTheSame) {
  // What a summary's analysis keeps of a stage's gaps: intervals added as their steps are read,
  // including one of no step, one of none, and one past the steps the timeline ends up with (it
  // counts as no step's, as in the list).
  const std::vector<IdleInterval> in = {
      {0, 3 * kMs, 12 * kGiB},  {0, kMs / 2}, {1, 4 * kMs, 10 * kGiB}, {-1, 2 * kMs}, {1, 0},
      {2, 70 * kMs, 11 * kGiB}, {5, 6 * kMs}};
  IdleTally tally;
  for (const IdleInterval& b : in) addIdle(tally, b);
  for (size_t steps : {1u, 3u}) {
    const IdleInventory list = idleInventory(in, steps, MemoryBasis::Allocated, 80 * kGiB);
    const IdleInventory folded = idleInventory(tally, steps, MemoryBasis::Allocated, 80 * kGiB);
    EXPECT_EQ(folded.bubbles, 6);
    EXPECT_EQ(folded.bubbles, list.bubbles);
    EXPECT_EQ(folded.idle, list.idle);
    EXPECT_EQ(folded.largest, list.largest);
    ASSERT_EQ(folded.histogram.size(), list.histogram.size());
    for (size_t b = 0; b < list.histogram.size(); ++b) {
      EXPECT_EQ(folded.histogram[b].count, list.histogram[b].count);
      EXPECT_EQ(folded.histogram[b].idle, list.histogram[b].idle);
    }
    EXPECT_EQ(folded.shareAtLeast, list.shareAtLeast);
    EXPECT_EQ(folded.steady, list.steady);
    EXPECT_EQ(folded.steadyNote, list.steadyNote);
    EXPECT_EQ(folded.freeMemoryBubbles, 3);
    EXPECT_EQ(folded.freeMemoryMedian, list.freeMemoryMedian);
  }
  // An empty tally is an empty inventory, its histogram's buckets there.
  const IdleInventory none = idleInventory(IdleTally{}, 2, MemoryBasis::NotRecorded, 0);
  EXPECT_EQ(none.bubbles, 0);
  EXPECT_EQ(none.histogram.size(), kBubbleThresholds.size() + 1);
}

}  // namespace
}  // namespace bubblescope::analysis
