#include "gui/timeline/track.h"

#include <algorithm>

namespace bubblescope::gui {

std::pair<size_t, size_t> Track::visible(TimeNs from, TimeNs to) const {
  // Ends are sorted: the first interval ending after `from` is the first visible one.
  const auto first = std::upper_bound(end.begin(), end.end(), from) - end.begin();
  const auto last = std::lower_bound(start.begin() + first, start.end(), to) - start.begin();
  return {static_cast<size_t>(first), static_cast<size_t>(std::max(first, last))};
}

std::vector<Track> packLanes(std::vector<Span> spans) {
  std::stable_sort(spans.begin(), spans.end(),
                   [](const Span& a, const Span& b) { return a.start < b.start; });
  std::vector<Track> lanes;
  std::vector<TimeNs> free;  // when each lane's last interval ends
  for (const Span& s : spans) {
    const TimeNs end = std::max(s.start, s.end);
    size_t lane = 0;
    while (lane < lanes.size() && free[lane] > s.start) ++lane;
    if (lane == lanes.size()) {
      lanes.emplace_back();
      free.push_back(s.start);
    }
    lanes[lane].push(s.start, end, s.item);
    free[lane] = end;
  }
  return lanes;
}

}  // namespace bubblescope::gui
