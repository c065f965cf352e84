#pragma once
// Preprocess, as in Tracy: the rows on screen, the view and the plot in; compact draw records
// out (colored boxes with the labels that fit, send->recv arrows, step marks). Drawing walks
// these lists and nothing else, so the timeline's logic lives here and is tested without a window.
#include <cstdint>
#include <string>
#include <vector>

#include "gui/model/search.h"
#include "gui/model/timeline_model.h"
#include "gui/timeline/colors.h"
#include "gui/timeline/lod.h"
#include "gui/draw/row_layout.h"
#include "gui/timeline/time_mapping.h"

namespace bubblescope::gui {

enum BoxFlag : uint8_t {
  kBoxFolded = 1,     // several intervals too narrow to draw apart
  kBoxGhost = 2,      // the ideal schedule
  kBoxIdle = 4,       // an idle gap (fill: its dominant class)
  kBoxSearchHit = 8,  // holds a search match
};
inline constexpr uint16_t kGapLane = 0xffff;

struct DrawBox {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  Rgba fill = 0;
  uint32_t first = 0;  // position of the first interval in its lane
  uint32_t count = 1;  // intervals in the box
  uint16_t row = 0;    // index into RowLayout::rows
  uint16_t lane = 0;   // lane of the row; kGapLane for idle gaps
  uint8_t flags = 0;
  std::string label;  // drawn inside when not empty (it fits)
};

struct DrawArrow {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  Rgba color = 0;
  uint32_t transfer = 0;  // index into PipelineResult::transfers
};

struct StepMark {
  float x0 = 0, x1 = 0;
  int step = 0;  // index into PipelineResult::steps
  std::string label;
};

// A piece of an odd stage's row the boxes leave uncovered: alternate stages are shaded so they
// read apart, and only where nothing is drawn over the shade.
struct Backdrop {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

struct RecordStyle {
  double charW = 7;     // ImGui's default font is monospaced, 7 px a character
  double labelPad = 4;  // box width kept free around a label
  double minBoxPx = kMinBoxPx;
  // Transfers on screen above this are a blur: they are not drawn but counted (and said so).
  size_t maxArrows = 1500;
  bool arrows = true;
};

struct DrawRecords {
  // Paint order: per row, idle gaps first. An op row's idle gaps are cut where its op boxes
  // cover them (folded runs at low zoom), so no pixel is painted twice.
  std::vector<DrawBox> boxes;
  std::vector<DrawArrow> arrows;
  size_t hiddenArrows = 0;
  std::vector<StepMark> steps;
  std::vector<Backdrop> backdrops;  // painted first, under everything
  void clear();
};

// The records of the rows in `layout` over the view `m`; `search` (optional) marks matches.
void buildRecords(const TimelineModel& model, const PipelineRows& p, const RowLayout& layout,
                  const TimeMapping& m, const RecordStyle& style, const SearchResult* search,
                  DrawRecords& out);

// The topmost box under (x, y), or null.
const DrawBox* boxAt(const DrawRecords& records, double x, double y);

// The lane a box was drawn from (null for idle gaps).
const Track* laneOfBox(const PipelineRows& p, const RowLayout& layout, const DrawBox& box);

}  // namespace bubblescope::gui
