#pragma once
// The time <-> pixel mapping of a timeline: a view range of int64 ns shown on a pixel span. As in
// Tracy, pixels are computed relative to the view start in double, so epoch nanoseconds (~1.7e18)
// never pass through a float. Zoom and pan are pure functions of a mapping, tested on tables.
#include <cstdint>

#include "traces/model/time.h"

namespace bubblescope::gui {

// Below 100 ns in 1,000+ pixels a pixel is a fraction of the timers' resolution.
inline constexpr TimeNs kMinViewSpan = 100;

struct TimeMapping {
  TimeNs start = 0;  // the view range [start, end)
  TimeNs end = 1;
  double x0 = 0;  // the pixel span [x0, x0 + width)
  double width = 1;

  TimeNs span() const { return end - start; }
  double pxPerNs() const { return width / static_cast<double>(span()); }
  double nsPerPx() const { return static_cast<double>(span()) / width; }
  double x(TimeNs t) const { return x0 + static_cast<double>(t - start) * pxPerNs(); }
  // The time at pixel `px`, to the nearest ns.
  TimeNs time(double px) const;
  bool operator==(const TimeMapping&) const = default;
};

// Zooms by `factor` (> 1 in, < 1 out) keeping the time under pixel `px` where it is. The span stays
// within [kMinViewSpan, maxSpan] and the view keeps overlapping `limits` (the data's extent).
TimeMapping zoomAt(const TimeMapping& m, double px, double factor, Interval limits);
// Moves the view by `dx` pixels (positive: later times come into view).
TimeMapping panBy(const TimeMapping& m, double dx, Interval limits);
// The view showing [a, b) with `margin` (a fraction of the span) left empty on each side.
TimeMapping fitTo(const TimeMapping& m, TimeNs a, TimeNs b, double margin);
// The same pixel span showing the same range shifted by `delta` ns (the compared run's view).
TimeMapping shifted(const TimeMapping& m, TimeNs delta);
// Clamps span and position as zoomAt/panBy do (the largest span is 4x the limits').
TimeMapping clampView(const TimeMapping& m, Interval limits);

}  // namespace bubblescope::gui
