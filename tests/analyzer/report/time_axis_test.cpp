// The time <-> pixel mapping and the axis ticks of the drawn timelines.
#include <gtest/gtest.h>

#include "analyzer/report/time_axis.h"

namespace bubblescope::analysis {
namespace {

TEST(TimeAxis, MapsTheRangeOntoThePixels) {
  const TimeAxis axis{1'000, 3'000, 100, 500};
  EXPECT_DOUBLE_EQ(axis.x(1'000), 100);
  EXPECT_DOUBLE_EQ(axis.x(3'000), 500);
  EXPECT_DOUBLE_EQ(axis.x(2'000), 300);
  EXPECT_DOUBLE_EQ(axis.width(1'500, 2'000), 100);
  EXPECT_DOUBLE_EQ(axis.pxPerNs(), 0.2);
}

TEST(TimeAxis, EmptyRangeMapsEverythingToTheStart) {
  const TimeAxis axis{5, 5, 10, 20};
  EXPECT_DOUBLE_EQ(axis.x(7), 10);
}

TEST(NiceTicks, StepIsOneTwoOrFiveTimesAPowerOfTen) {
  struct Case {
    TimeNs range;
    int maxTicks;
    TimeNs step;
  } cases[] = {
      {10'000'000, 10, 1'000'000},   // 10 ms in 10: 1 ms
      {10'000'000, 5, 2'000'000},    // in 5: 2 ms
      {10'000'000, 2, 5'000'000},    // in 2: 5 ms
      {73'000'000, 10, 10'000'000},  // 73 ms: 10 ms (7 intervals)
      {1'500'000, 10, 200'000},      // 1.5 ms: 0.2 ms
      {987, 10, 100},                // sub-microsecond ranges work too
      {0, 10, 1},                    // empty range: no division by zero
  };
  for (const Case& c : cases) {
    EXPECT_EQ(niceTickStep(c.range, c.maxTicks), c.step) << c.range << " in " << c.maxTicks;
  }
}

TEST(NiceTicks, TicksRunFromZeroToTheRange) {
  const std::vector<TimeNs> ticks = niceTicks(5'500'000, 2);
  ASSERT_EQ(ticks.size(), 3u);  // 0, 2, 4 ms
  EXPECT_EQ(ticks[0], 0);
  EXPECT_EQ(ticks[2], 4'000'000);
}

TEST(TickLabel, HasTheDecimalsTheStepNeeds) {
  EXPECT_EQ(tickLabelMs(20'000'000, 10'000'000), "20");
  EXPECT_EQ(tickLabelMs(1'400'000, 200'000), "1.4");
  EXPECT_EQ(tickLabelMs(150'000, 50'000), "0.15");
  EXPECT_EQ(tickLabelMs(0, 1'000'000), "0");
}

}  // namespace
}  // namespace bubblescope::analysis
