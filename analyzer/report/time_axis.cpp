#include "analyzer/report/time_axis.h"

#include <algorithm>
#include <cstdio>

namespace bubblescope::analysis {

double TimeAxis::pxPerNs() const {
  return t1 > t0 ? (x1 - x0) / static_cast<double>(t1 - t0) : 0.0;
}

double TimeAxis::x(TimeNs t) const {
  return x0 + static_cast<double>(t - t0) * pxPerNs();
}

TimeNs niceTickStep(TimeNs range, int maxTicks) {
  maxTicks = std::max(1, maxTicks);
  if (range <= 0) return 1;
  for (TimeNs decade = 1;; decade *= 10) {
    for (TimeNs m : {1, 2, 5}) {
      const TimeNs step = m * decade;
      if (range / step <= maxTicks) return step;
    }
  }
}

std::vector<TimeNs> niceTicks(TimeNs range, int maxTicks) {
  const TimeNs step = niceTickStep(range, maxTicks);
  std::vector<TimeNs> ticks;
  for (TimeNs t = 0; t <= range; t += step) ticks.push_back(t);
  return ticks;
}

std::string tickLabelMs(TimeNs t, TimeNs step) {
  // The fewest decimals that keep every multiple of the step exact: 0.2 ms steps need one.
  int decimals = 0;
  for (TimeNs unit = 1'000'000; decimals < 6 && step % unit != 0; unit /= 10) ++decimals;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, static_cast<double>(t) / 1e6);
  return buf;
}

}  // namespace bubblescope::analysis
