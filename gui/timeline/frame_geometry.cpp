#include "gui/timeline/frame_geometry.h"

#include <algorithm>
#include <cmath>

namespace bubblescope::gui {

double panelWidth(double windowWidth) {
  return std::floor(std::clamp(windowWidth * 0.27, 300.0, 460.0));
}

FrameGeometry frameGeometry(double width, double height, int panes, bool panel, double banner) {
  FrameGeometry g;
  g.toolbar = {0, 0, width, kToolbarH};
  const double right = panel ? width - panelWidth(width) : width;
  if (panel) g.panel = {right, kToolbarH, width, height};
  if (banner > 0) g.banner = {0, kToolbarH, right, kToolbarH + banner};
  const double top = kToolbarH + std::max(banner, 0.0);
  panes = std::max(panes, 1);
  const double paneH = std::floor((height - top) / panes);
  for (int i = 0; i < panes; ++i) {
    PaneGeometry p;
    double y = top + i * paneH;
    const double bottom = i + 1 == panes ? height : y + paneH;
    if (panes > 1) {
      p.header = {0, y, right, y + kPaneHeaderH};
      y += kPaneHeaderH;
    }
    p.ruler = {kLabelW, y, right, y + kRulerH};
    y += kRulerH;
    p.steps = {kLabelW, y, right, y + kStepStripH};
    y += kStepStripH;
    p.labels = {0, y, kLabelW, bottom};
    p.plot = {kLabelW, y, right, bottom};
    g.panes.push_back(p);
  }
  return g;
}

}  // namespace bubblescope::gui
