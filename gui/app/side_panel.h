#pragma once
// The side panel beside the timeline: the last error until dismissed, then every section of
// kPanelSections (panel/panel_sections.h), in that table's order.
#include "gui/app/viewer_state.h"

namespace bubblescope::gui {

void drawSidePanel(ViewerState& s, const Rect& r);

}  // namespace bubblescope::gui
