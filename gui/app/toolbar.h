#pragma once
// The toolbar over the timeline: step selector, DP replica, fit/expand buttons, options, the view
// span and the navigation help.
#include "gui/app/viewer_state.h"

namespace bubblescope::gui {

void drawToolbar(ViewerState& s, const Rect& r);

}  // namespace bubblescope::gui
