#pragma once
// Where each row of a pipeline pane goes vertically: per stage its op row, its ghost row (the
// ideal schedule) and, when expanded, its detail rows, a lane high each. Only rows that meet the
// viewport are placed (Perfetto's virtual track scrolling), so 64 stages with thousands of detail
// lanes cost what is on screen.
#include <vector>

#include "gui/model/timeline_model.h"

namespace bubblescope::gui {

struct RowHeights {
  double ops = 22;   // a stage's op row (labels in ImGui's 13 px font fit)
  double ideal = 8;  // the ghost row under it: a glance, not a read
  double lane = 15;  // one lane of a detail row
  double gap = 5;    // between stage groups
};

struct PlacedRow {
  int stage = 0;     // index into PipelineRows::stages
  int row = -1;      // -1: ops, -2: ideal, >= 0: detail row (as rowOf)
  double y = 0;      // top, in pixels
  double h = 0;      // height
  double laneH = 0;  // height of one lane
};

struct RowLayout {
  std::vector<PlacedRow> rows;  // the rows meeting [top, top + height), top to bottom
  std::vector<double> opsY;     // every stage's op row top (on screen or not), for arrows
  double opsH = 0;              // an op row's height
  double contentHeight = 0;     // all rows, for scrolling
};

// `expanded[s]`: whether stage s shows its detail rows (missing entries: collapsed). Rows start at
// `top - scroll`.
RowLayout layoutRows(const PipelineRows& p, const std::vector<bool>& expanded,
                     const RowHeights& heights, double top, double scroll, double height);

}  // namespace bubblescope::gui
