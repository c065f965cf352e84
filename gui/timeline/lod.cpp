#include "gui/timeline/lod.h"

#include <algorithm>
#include <cmath>

namespace bubblescope::gui {

void foldVisible(const Track& track, const TimeMapping& m, double minPx, std::vector<LodBox>& out) {
  const auto [firstVisible, stop] = track.visible(m.start, m.end);
  const TimeNs minNs = std::max<TimeNs>(1, static_cast<TimeNs>(std::ceil(minPx * m.nsPerPx())));
  const auto& start = track.start;
  const auto& end = track.end;
  size_t i = firstVisible;
  while (i < stop) {
    if (end[i] - start[i] >= minNs) {
      out.push_back({i, i + 1, start[i], end[i]});
      ++i;
      continue;
    }
    // A narrow interval opens a run. As in Tracy: every interval ending before the run's end +
    // minNs is narrow and close (lanes do not overlap) and joins in one binary search; the next
    // one joins too when it ends within minNs of the last, which moves the limit on by at least
    // minNs. So a run costs a binary search per minNs of view, not a step per interval.
    TimeNs nextTime = end[i] + minNs;
    size_t j = i + 1;
    for (;;) {
      j = static_cast<size_t>(std::lower_bound(end.begin() + static_cast<std::ptrdiff_t>(j),
                                               end.begin() + static_cast<std::ptrdiff_t>(stop),
                                               nextTime) -
                              end.begin());
      if (j >= stop || end[j] - end[j - 1] >= minNs) break;
      nextTime = end[j] + minNs;
    }
    const TimeNs runEnd = end[j - 1];
    out.push_back({i, j, start[i], runEnd});
    i = j;
  }
}

}  // namespace bubblescope::gui
