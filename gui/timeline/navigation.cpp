#include "gui/timeline/navigation.h"

#include <algorithm>
#include <cmath>

namespace bubblescope::gui {

TimeMapping navigate(const TimeMapping& m, const NavInput& in, Interval limits) {
  TimeMapping out = m;
  const double anchor = in.overPlot ? in.mouseX : m.x0 + m.width / 2;
  if (in.wheel != 0) {
    const double base = in.fine ? kFineWheelZoom : in.fast ? kFastWheelZoom : kWheelZoom;
    out = zoomAt(out, anchor, std::pow(base, in.wheel), limits);
  }
  // A long frame (a hitch) must not fling the view: keys act for at most a tenth of a second.
  const double dt = std::clamp(in.dt, 0.0, 0.1);
  if (in.zoomIn != in.zoomOut && dt > 0) {
    const double f = std::pow(kKeyZoomPerSecond, in.zoomIn ? dt : -dt);
    out = zoomAt(out, anchor, f, limits);
  }
  double dx = -in.dragDx;  // dragging right shows earlier times
  if (in.panLeft != in.panRight) dx += (in.panRight ? 1 : -1) * kKeyPanPerSecond * dt * m.width;
  if (dx != 0) out = panBy(out, dx, limits);
  return out;
}

}  // namespace bubblescope::gui
