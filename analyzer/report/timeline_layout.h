#pragma once
// Where everything of one step's timeline goes, in pixels: stage rows, op boxes labelled when
// the label fits, idle gaps shaded by their dominant class, the ideal schedule as a ghost lane,
// the step's tail, the time axis. Pure (no drawing): the SVG writer and the viewer paint it.
// As in Tracy, runs of ops narrower than kMinBoxPx fold into one box, so a 64-stage step with
// thousands of ops stays legible and small.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/report/palette.h"
#include "analyzer/result/result.h"

namespace bubblescope::analysis {

// Narrower ops merge with their neighbours: a box under 2 px cannot be seen apart.
inline constexpr double kMinBoxPx = 2.0;
// Idle shorter than this on screen is not drawn (anti-aliasing would make it a smudge).
inline constexpr double kMinGapPx = 1.0;

enum class BoxKind : uint8_t { Op, Ghost, Idle, Tail };

struct TimelineBox {
  BoxKind kind = BoxKind::Op;
  int row = 0;  // index into TimelineLayout::rows
  double x = 0, y = 0, w = 0, h = 0;
  Rgb fill;
  std::string label;    // drawn inside when not empty (it fits)
  std::string tooltip;  // what the box is, for hover
  int folded = 1;       // ops merged into this box
  int style = 0;        // the OpKind (ops, ghosts) or IdleClass (idle) as an index
};

struct TimelineRow {
  int stage = 0;
  std::string label;  // "stage 3" or "3" when rows are thin
  double y = 0;       // top of the op lane
  double opHeight = 0;
  double ghostY = 0, ghostHeight = 0;  // the ideal schedule's lane under it
  // One line per op kind and idle class on this row (count, time, cost against the ideal, the
  // largest gap's blame): the tooltips of dense drawings, where single boxes are too small.
  std::array<std::string, 4> opSummary;
  std::array<std::string, kIdleClasses> idleSummary;
};

struct AxisTick {
  double x = 0;
  std::string label;  // ms from the step start
};

struct LegendItem {
  Rgb fill;
  std::string text;
  bool ghost = false;  // drawn as a ghost swatch
};

struct TimelineLayout {
  int step = 0;  // index into PipelineResult::steps
  double width = 0, height = 0;
  double plotX0 = 0, plotX1 = 0;  // the time range's pixels
  double plotY0 = 0, plotY1 = 0;  // the rows' pixels
  double fontSize = 11;           // row labels and box labels
  std::vector<TimelineRow> rows;
  std::vector<TimelineBox> boxes;  // ghosts, then idle and tail, then ops (paint order)
  std::vector<AxisTick> ticks;
  double axisY = 0;
  std::optional<double> idealEndX;  // where the ideal step (T_ideal) would end
  double measuredEndX = 0;
  std::vector<LegendItem> legend;
  double legendY = 0;
};

// The step a report draws: the one with the most avoidable idle (not the schedule's own
// bubbles), the first on a tie or when none has any.
int pickStepToDraw(const PipelineResult& pipeline);

// The layout of `step` at `width` pixels; row heights scale with the number of stages.
TimelineLayout layoutTimeline(const PipelineResult& pipeline, int step, double width);

}  // namespace bubblescope::analysis
