#pragma once
// Time <-> pixel mapping and axis ticks for the drawn timelines: a pure struct, no drawing.
#include <string>
#include <vector>

#include "traces/model/time.h"

namespace bubblescope::analysis {

// Maps [t0, t1] onto [x0, x1] linearly.
struct TimeAxis {
  TimeNs t0 = 0, t1 = 1;
  double x0 = 0, x1 = 1;

  double x(TimeNs t) const;
  double width(TimeNs from, TimeNs to) const { return x(to) - x(from); }
  double pxPerNs() const;
};

// The tick spacing for [0, range]: 1, 2 or 5 x 10^k ns, the smallest giving at most `maxTicks`
// intervals.
TimeNs niceTickStep(TimeNs range, int maxTicks);
// Ticks at multiples of niceTickStep from 0 to `range` inclusive.
std::vector<TimeNs> niceTicks(TimeNs range, int maxTicks);
// A tick's label in ms with as many decimals as the step needs: "0", "2.5", "0.25".
std::string tickLabelMs(TimeNs t, TimeNs step);

}  // namespace bubblescope::analysis
