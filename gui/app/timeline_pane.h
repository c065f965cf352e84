#pragma once
// One pane of the timeline: the ruler, the step strip, the row labels and the rows, drawn from
// the draw records of this frame, and the mouse on them (zoom, pan, select, pick, hover).
#include <cstddef>

#include "gui/app/viewer_state.h"

namespace bubblescope::gui {

// Updates the pane's mapping, layout and records, handles its mouse input and draws it into the
// current ImGui window.
void drawPane(ViewerState& s, size_t index, const PaneGeometry& g, bool hovered);

}  // namespace bubblescope::gui
