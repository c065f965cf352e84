#pragma once
// The window's side of view --attach, once a frame: the job's newest window shown when the view
// follows the newest step (else held back, its steps counted), and the jump back to it.
#include <string>
#include <vector>

#include "gui/app/viewer_state.h"

namespace bubblescope::gui {

// What pane 0 shows now: its step's number and the view.
ShownView shownView(const ViewerState& s);
// Takes what the job's feed has: returns the lines it said since the last call (the caller prints
// them). Nothing for a recorded run.
std::vector<std::string> pollLive(ViewerState& s);
// Shows the newest window held back, its newest step, and follows again.
void jumpToNewest(ViewerState& s);
// The newest step shown, -1 when none.
int64_t newestShown(const ViewerState& s);

}  // namespace bubblescope::gui
