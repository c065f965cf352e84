#include "gui/model/range_stats.h"

#include <algorithm>
#include <cmath>

namespace bubblescope::gui {
namespace {

TimeNs overlap(TimeNs a0, TimeNs a1, Interval r) {
  return std::max<TimeNs>(0, std::min(a1, r.end) - std::max(a0, r.start));
}

}  // namespace

RangeStats rangeStats(const PipelineRows& p, Interval range) {
  RangeStats out;
  if (range.end < range.start) std::swap(range.start, range.end);
  out.range = range;
  const auto& pl = *p.result;
  for (const StageRows& sr : p.stages) {
    StageRangeStats st;
    for (const Track& lane : sr.ops.lanes) {
      const auto [first, last] = lane.visible(range.start, range.end);
      for (size_t i = first; i < last; ++i) {
        st.ops += overlap(lane.start[i], lane.end[i], range);
        ++st.opCount[static_cast<int>(pl.ops[lane.item[i]].op.kind)];
        out.ops.push_back(lane.item[i]);
      }
    }
    const auto [first, last] = sr.gaps.visible(range.start, range.end);
    for (size_t i = first; i < last; ++i) {
      const analysis::Gap& g = pl.gaps[sr.gaps.item[i]];
      const TimeNs cut = overlap(g.start, g.end, range);
      const double share = static_cast<double>(cut) / static_cast<double>(g.end - g.start);
      for (int c = 0; c < analysis::kIdleClasses; ++c) {
        const auto part =
            static_cast<TimeNs>(std::llround(static_cast<double>(g.byClass[c]) * share));
        st.idleByClass[c] += part;
        st.idle += part;
      }
    }
    st.other = std::max<TimeNs>(0, range.duration() - st.ops - st.idle);
    out.stages.push_back(st);
  }
  std::sort(out.ops.begin(), out.ops.end(), [&](uint32_t a, uint32_t b) {
    return pl.ops[a].start != pl.ops[b].start ? pl.ops[a].start < pl.ops[b].start
                                              : pl.ops[a].stage < pl.ops[b].stage;
  });
  return out;
}

}  // namespace bubblescope::gui
