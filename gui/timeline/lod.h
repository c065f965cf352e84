#pragma once
// Level of detail for one lane, as in Tracy: intervals at least kMinBoxPx wide are drawn one by
// one; runs of narrower ones separated by less than kMinBoxPx fold into one box that says how many
// it holds. The work is a binary search per box, so it scales with pixels, not with events.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gui/timeline/time_mapping.h"
#include "gui/timeline/track.h"

namespace bubblescope::gui {

// Tracy's MinVisSize: boxes narrower than 3 px cannot be told apart or pointed at.
inline constexpr double kMinBoxPx = 3.0;

// Intervals [first, last) of a track shown as one box spanning [start, end).
struct LodBox {
  size_t first = 0, last = 0;
  TimeNs start = 0, end = 0;
  size_t count() const { return last - first; }
  bool folded() const { return last - first > 1; }
};

// The boxes of `track` visible in `m`, in time order, appended to `out`.
void foldVisible(const Track& track, const TimeMapping& m, double minPx, std::vector<LodBox>& out);

}  // namespace bubblescope::gui
