#pragma once
// The side panel: the run (and the compared run) in figures, per-stage utilisation and idle-class
// bars for the selected step or the whole run, the legend, the what-if table, the search box, the
// selected range's or box's details, the largest avoidable gaps and the analysis' warnings.
#include "gui/app/viewer_state.h"

namespace bubblescope::gui {

void drawSidePanel(ViewerState& s, const Rect& r);

}  // namespace bubblescope::gui
