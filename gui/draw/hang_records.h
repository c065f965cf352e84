#pragma once
// The hang's marks (gui/model/hang_overlay.h) in pixels for one frame: open boxes on their
// stage's op row, last-seen bars, red wait-for arrows. A run has a handful of them, so mapping
// them each frame costs nothing; what they are was worked out once, when the run was loaded.
#include <cstdint>
#include <string>
#include <vector>

#include "gui/draw/draw_records.h"
#include "gui/draw/row_layout.h"
#include "gui/model/hang_overlay.h"
#include "gui/timeline/colors.h"
#include "gui/timeline/time_mapping.h"

namespace bubblescope::gui {

// Opposite arrows between two stages often start within a pixel of each other (a deadlock's two
// waits begin together): arrows down are drawn this far left of their wait's start, arrows up
// this far right, so both heads show.
inline constexpr double kWaitArrowSpreadPx = 3;

struct HangBox {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  Rgba fill = 0, outline = kHangRed;
  bool hatched = false;  // still open (a range or an NCCL call): hatched
  uint32_t mark = 0;     // index into PipelineHang::marks
  float labelX = 0;      // the tag starts here: inside the box and the plot
  std::string label;     // the tag, cut to fit; "" when nothing fits
};

struct LastSeenBar {
  float x = 0, y0 = 0, y1 = 0;
  uint32_t mark = 0;  // index into PipelineHang::lastSeen
};

struct WaitArrowRecord {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  uint32_t arrow = 0;  // index into PipelineHang::arrows
};

struct HangRecords {
  std::vector<HangBox> boxes;
  std::vector<LastSeenBar> lastSeen;
  std::vector<WaitArrowRecord> arrows;  // colour: kHangRed
  void clear();
};

Rgba hangFill(HangMarkKind kind);

// The records of `hang` over the rows of `layout` and the view `m`.
void buildHangRecords(const PipelineHang& hang, const RowLayout& layout, const TimeMapping& m,
                      const RecordStyle& style, HangRecords& out);

// The hover text of what lies under (x, y): an arrow, a last-seen bar, an open box; null if none.
const std::string* hangTextAt(const PipelineHang& hang, const HangRecords& records, double x,
                              double y);

}  // namespace bubblescope::gui
