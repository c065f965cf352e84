// The ruler's ticks and labels, and navigation as a function of one frame's input.
#include <gtest/gtest.h>

#include "gui/timeline/navigation.h"
#include "gui/timeline/ruler.h"

namespace bubblescope::gui {
namespace {

struct StepCase {
  TimeNs span;
  double width, spacing;
  TimeNs step;
};

TEST(Ruler, TickStepIsTheSmallestOneTwoFiveAtTheSpacing) {
  const StepCase cases[] = {
      {1'000'000, 1000, 100, 100'000},  // 1 ms over 1000 px: 100 µs every 100 px
      {1'000'000, 1000, 110, 200'000},  // a little more spacing: the next step up
      {10'000'000'000, 1000, 100, 1'000'000'000},
      {3'000, 1000, 100, 500},  // 300 ns wanted: 500
      {100, 1000, 100, 10},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(tickStep(TimeMapping{0, c.span, 0, c.width}, c.spacing), c.step) << c.span;
  }
}

TEST(Ruler, TicksAreLabelledFromTheOriginInTheStepsUnit) {
  const TimeNs epoch = 1'700'000'000'000'000'000;
  const TimeMapping m{epoch - 2'000'000, epoch + 8'000'000, 0, 1000};  // 10 ms
  const auto ticks = rulerTicks(m, epoch, 100);
  ASSERT_EQ(ticks.size(), 10u);  // -2 ms .. 7 ms every 1 ms
  EXPECT_EQ(ticks[0].label, "-2 ms");
  EXPECT_EQ(ticks[2].label, "0");
  EXPECT_EQ(ticks[3].label, "1 ms");
  EXPECT_DOUBLE_EQ(ticks[2].x, 200);
  EXPECT_EQ(tickLabel(500, 100), "500 ns");
  EXPECT_EQ(tickLabel(1'500'000, 500'000), "1500 µs");
  EXPECT_EQ(tickLabel(3'000'000'000, 1'000'000'000), "3 s");
}

TEST(Ruler, DurationsUseTheLargestFittingUnit) {
  EXPECT_EQ(formatDuration(800), "800 ns");
  EXPECT_EQ(formatDuration(3'100'000), "3.10 ms");
  EXPECT_EQ(formatDuration(2'500), "2.50 µs");
  EXPECT_EQ(formatDuration(-1'500'000), "-1.50 ms");
  EXPECT_EQ(formatDuration(12'345'678'901, 1), "12.3 s");
}

TEST(Navigation, WheelZoomsAtTheCursorAndCtrlShiftChangeTheRate) {
  const Interval limits{0, 1'000'000};
  const TimeMapping m{0, 100'000, 0, 1000};
  NavInput in;
  in.wheel = 1;
  in.mouseX = 250;
  in.overPlot = true;
  const TimeMapping z = navigate(m, in, limits);
  EXPECT_EQ(z.span(), 80'000);          // 1.25x
  EXPECT_EQ(z.time(250), m.time(250));  // the time under the cursor stays
  in.fine = true;
  EXPECT_EQ(navigate(m, in, limits).span(), 95'238);  // 1.05x
  in.fine = false;
  in.fast = true;
  EXPECT_EQ(navigate(m, in, limits).span(), 50'000);  // 2x
}

TEST(Navigation, DragPansWithTheContentAndKeysActOverTime) {
  const Interval limits{0, 1'000'000};
  const TimeMapping m{100'000, 200'000, 0, 1000};
  NavInput drag;
  drag.dragDx = 10;  // dragging right by 10 px shows earlier times
  EXPECT_EQ(navigate(m, drag, limits).start, 99'000);
  NavInput keys;
  keys.panRight = true;
  keys.dt = 0.05;  // D for 50 ms: a twentieth of the view
  EXPECT_EQ(navigate(m, keys, limits).start, 105'000);
  keys = {};
  keys.zoomIn = true;
  keys.dt = 0.05;  // W for 50 ms: 4^0.05 = 1.072x
  EXPECT_EQ(navigate(m, keys, limits).span(), 93'303);
  keys.dt = 5;  // a hitch: capped at a tenth of a second, 4^0.1 = 1.149x
  EXPECT_EQ(navigate(m, keys, limits).span(), 87'055);
  keys.zoomOut = true;  // both held: nothing
  EXPECT_EQ(navigate(m, keys, limits), m);
}

}  // namespace
}  // namespace bubblescope::gui
