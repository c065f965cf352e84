#pragma once
// Navigation as in Tracy and Perfetto, as a pure function of one frame's input: the wheel zooms
// at the cursor (Ctrl: finely, Shift: fast), a drag pans, W/S zoom and A/D pan while held.
#include "gui/timeline/time_mapping.h"

namespace bubblescope::gui {

// One wheel notch zooms by this factor; Ctrl and Shift change it (Tracy's precise/fast zoom).
inline constexpr double kWheelZoom = 1.25, kFineWheelZoom = 1.05, kFastWheelZoom = 2.0;
// Held W/S zoom 4x per second; held A/D move the view by its own width per second.
inline constexpr double kKeyZoomPerSecond = 4.0, kKeyPanPerSecond = 1.0;

struct NavInput {
  double wheel = 0;       // notches this frame, positive: zoom in
  double mouseX = 0;      // pixel under the cursor
  bool overPlot = false;  // wheel and keys zoom at the cursor only when it is over the plot
  double dragDx = 0;      // pixels dragged with the pan button this frame (content follows)
  bool zoomIn = false, zoomOut = false, panLeft = false, panRight = false;  // W, S, A, D held
  bool fine = false, fast = false;                                          // Ctrl, Shift
  double dt = 0;  // seconds since the last frame
};

TimeMapping navigate(const TimeMapping& m, const NavInput& in, Interval limits);

}  // namespace bubblescope::gui
