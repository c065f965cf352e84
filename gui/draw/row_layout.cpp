#include "gui/draw/row_layout.h"

#include <algorithm>

namespace bubblescope::gui {

RowLayout layoutRows(const PipelineRows& p, const std::vector<bool>& expanded,
                     const RowHeights& heights, double top, double scroll, double height) {
  RowLayout out;
  out.opsH = heights.ops;
  double y = top - scroll;
  const double bottom = top + height;
  auto place = [&](int stage, int row, double h, double laneH) {
    if (y < bottom && y + h > top) out.rows.push_back({stage, row, y, h, laneH});
    y += h;
  };
  for (size_t s = 0; s < p.stages.size(); ++s) {
    const StageRows& sr = p.stages[s];
    const int stage = static_cast<int>(s);
    out.opsY.push_back(y);
    const size_t opLanes = std::max<size_t>(1, sr.ops.lanes.size());
    place(stage, -1, heights.ops, heights.ops / static_cast<double>(opLanes));
    const size_t idealLanes = std::max<size_t>(1, sr.ideal.lanes.size());
    place(stage, -2, heights.ideal, heights.ideal / static_cast<double>(idealLanes));
    if (s < expanded.size() && expanded[s]) {
      for (size_t d = 0; d < sr.detail.size(); ++d) {
        const size_t lanes = std::max<size_t>(1, sr.detail[d].lanes.size());
        place(stage, static_cast<int>(d), heights.lane * static_cast<double>(lanes), heights.lane);
      }
    }
    y += heights.gap;
  }
  out.contentHeight = y - (top - scroll);
  return out;
}

}  // namespace bubblescope::gui
