#pragma once
// One lane of a timeline row: intervals sorted by start that never overlap, so their ends are
// sorted too and the visible window is two binary searches (Tracy's per-thread zone vectors).
// Rows whose intervals overlap (concurrent kernels, start/end ranges) are split into lanes.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "traces/model/time.h"

namespace bubblescope::gui {

struct Track {
  std::vector<TimeNs> start, end;
  std::vector<uint32_t> item;  // what each interval is: an index the row kind gives meaning to

  size_t size() const { return start.size(); }
  bool empty() const { return start.empty(); }
  void push(TimeNs s, TimeNs e, uint32_t i) {
    start.push_back(s);
    end.push_back(e);
    item.push_back(i);
  }
  // [first, last): the intervals that reach into [from, to).
  std::pair<size_t, size_t> visible(TimeNs from, TimeNs to) const;
};

struct Span {
  TimeNs start = 0, end = 0;
  uint32_t item = 0;
};

// The fewest lanes in which no two intervals overlap: each interval, taken in order of start, goes
// to the first lane that is free by then (touching intervals share a lane). Intervals with
// end < start are taken as empty.
std::vector<Track> packLanes(std::vector<Span> spans);

}  // namespace bubblescope::gui
