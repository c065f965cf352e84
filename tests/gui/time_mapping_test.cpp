// The time <-> pixel mapping, zoom and pan: tables of cases (hotspot's tst_timelinedelegate).
#include "gui/timeline/time_mapping.h"

#include <gtest/gtest.h>

namespace bubblescope::gui {
namespace {

constexpr TimeNs kEpoch = 1'700'000'000'000'000'000;  // epoch ns: too big for a float

struct XCase {
  const char* name;
  TimeMapping m;
  TimeNs t;
  double x;
};

TEST(TimeMapping, MapsTimeToPixelRelativeToTheViewStart) {
  const XCase cases[] = {
      {"view start", {0, 1000, 0, 100}, 0, 0},
      {"view end", {0, 1000, 0, 100}, 1000, 100},
      {"half", {0, 1000, 0, 100}, 500, 50},
      {"offset plot", {0, 1000, 200, 100}, 500, 250},
      {"before the view", {0, 1000, 0, 100}, -1000, -100},
      {"epoch ns, 1 ns apart", {kEpoch, kEpoch + 1000, 0, 1000}, kEpoch + 1, 1},
      {"epoch ns, last pixel", {kEpoch, kEpoch + 1000, 0, 1000}, kEpoch + 999, 999},
      {"hours of trace", {kEpoch, kEpoch + 3'600'000'000'000, 0, 3600}, kEpoch + 1'000'000'000, 1},
  };
  for (const auto& c : cases) EXPECT_DOUBLE_EQ(c.m.x(c.t), c.x) << c.name;
}

TEST(TimeMapping, PixelToTimeInvertsTheMappingToTheNanosecond) {
  const TimeMapping m{kEpoch, kEpoch + 1'000'000, 100, 1000};
  for (TimeNs t : {kEpoch, kEpoch + 1, kEpoch + 999'999, kEpoch + 123'000}) {
    EXPECT_EQ(m.time(m.x(t)), t);
  }
  EXPECT_EQ(m.time(100), kEpoch);
  EXPECT_EQ(m.time(600), kEpoch + 500'000);
}

struct ZoomCase {
  const char* name;
  TimeMapping m;
  double px, factor;
  TimeNs start, end;
};

TEST(TimeMapping, ZoomKeepsTheTimeUnderTheCursor) {
  const Interval limits{0, 1'000'000};
  const ZoomCase cases[] = {
      {"in at the left edge", {0, 1000, 0, 100}, 0, 2, 0, 500},
      {"in at the right edge", {0, 1000, 0, 100}, 100, 2, 500, 1000},
      {"in at the middle", {0, 1000, 0, 100}, 50, 4, 375, 625},
      {"out at the middle", {400, 600, 0, 100}, 50, 0.5, 300, 700},
      {"in at a quarter, plot offset", {0, 1000, 200, 100}, 225, 2, 125, 625},
      {"never below the smallest span", {0, 1000, 0, 100}, 50, 1000, 450, 550},
  };
  for (const auto& c : cases) {
    const TimeMapping z = zoomAt(c.m, c.px, c.factor, limits);
    EXPECT_EQ(z.start, c.start) << c.name;
    EXPECT_EQ(z.end, c.end) << c.name;
    EXPECT_EQ(z.x0, c.m.x0) << c.name;
  }
}

TEST(TimeMapping, ZoomOutStopsAtFourTimesTheData) {
  const TimeMapping m{0, 1000, 0, 100};
  const TimeMapping z = zoomAt(m, 50, 1e-6, Interval{0, 1000});
  EXPECT_EQ(z.span(), 4000);
}

TEST(TimeMapping, PanMovesByPixelsAndKeepsTheDataInView) {
  const Interval limits{0, 10'000};
  const TimeMapping m{1000, 2000, 0, 100};
  EXPECT_EQ(panBy(m, 10, limits).start, 1100);  // 10 px of 10 ns
  EXPECT_EQ(panBy(m, -10, limits).start, 900);
  // Far past the end: a tenth of the view stays on the data.
  const TimeMapping right = panBy(m, 1e9, limits);
  EXPECT_EQ(right.start, 10'000 - 100);
  EXPECT_EQ(right.span(), 1000);
  const TimeMapping left = panBy(m, -1e9, limits);
  EXPECT_EQ(left.end, 100);
}

TEST(TimeMapping, FitShowsTheIntervalWithItsMargins) {
  const TimeMapping m{0, 1, 10, 500};
  const TimeMapping f = fitTo(m, kEpoch + 1000, kEpoch + 2000, 0.1);
  EXPECT_EQ(f.start, kEpoch + 900);
  EXPECT_EQ(f.end, kEpoch + 2100);
  EXPECT_EQ(f.x0, 10);
  EXPECT_EQ(fitTo(m, 5, 5, 0).span(), kMinViewSpan);  // an instant still gets a view
  EXPECT_EQ(shifted(f, -kEpoch).start, 900);
}

}  // namespace
}  // namespace bubblescope::gui
