#pragma once
// Where the window's parts go, in pixels: the toolbar on top, the side panel on the right, and one
// or two timeline panes (a second for --compare) each with a header, the time ruler, the step
// strip, the row labels and the plot. Pure, so tests find a stage's pixels in a screenshot.
#include <vector>

namespace bubblescope::gui {

struct Rect {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  double w() const { return x1 - x0; }
  double h() const { return y1 - y0; }
  bool contains(double x, double y) const { return x >= x0 && x < x1 && y >= y0 && y < y1; }
};

inline constexpr double kToolbarH = 32;
inline constexpr double kPaneHeaderH = 20;  // the run's name, in compare mode only
inline constexpr double kRulerH = 20;
inline constexpr double kStepStripH = 18;
inline constexpr double kLabelW = 190;      // "rank 12 GPU 0 stream 7" and an expand arrow
inline constexpr double kHangBannerH = 38;  // a hung run's diagnosis: two lines of text

struct PaneGeometry {
  Rect header;  // empty when there is one pane
  Rect ruler;
  Rect steps;
  Rect labels;  // row labels, left of the plot
  Rect plot;    // the rows' timeline
};

struct FrameGeometry {
  Rect toolbar;
  Rect banner;  // under the toolbar, over the panes: a hung run's diagnosis; empty if none
  Rect panel;   // empty when hidden
  std::vector<PaneGeometry> panes;
};

// The side panel takes about a quarter of the width, within readable bounds.
double panelWidth(double windowWidth);
// `banner`: the height of the banner over the panes (kHangBannerH for a hung run, else 0).
FrameGeometry frameGeometry(double width, double height, int panes, bool panel, double banner = 0);

}  // namespace bubblescope::gui
