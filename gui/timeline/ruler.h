#pragma once
// The time ruler over the timeline: ticks at 1, 2 or 5 x 10^k ns, labelled relative to an origin
// (the selected step's start) in the unit the spacing needs.
#include <string>
#include <vector>

#include "gui/timeline/time_mapping.h"

namespace bubblescope::gui {

struct Tick {
  TimeNs t = 0;
  double x = 0;
  std::string label;  // "12.5 ms", "-300 µs", "0"
};

// The smallest 1/2/5 x 10^k ns step whose ticks are at least `minSpacingPx` apart.
TimeNs tickStep(const TimeMapping& m, double minSpacingPx);
// Ticks at origin + k * step inside the view.
std::vector<Tick> rulerTicks(const TimeMapping& m, TimeNs origin, double minSpacingPx);
// A duration in the largest unit that keeps it >= 1, with `decimals` places: "2.50 ms", "800 ns".
std::string formatDuration(TimeNs t, int decimals = 2);
// A tick label: relative time in a unit fitted to `step`, with just the decimals it needs.
std::string tickLabel(TimeNs relative, TimeNs step);

}  // namespace bubblescope::gui
