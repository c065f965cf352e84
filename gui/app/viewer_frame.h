#pragma once
// One frame of the viewer's window: the toolbar, the timeline panes and the side panel, laid out
// by frameGeometry, plus the keys that act on the whole view. The window loop, the screenshot
// mode and the benchmark all drive it.
#include <memory>

#include "gui/app/viewer_state.h"

namespace bubblescope::gui {

// The state for the options' step, range, replica and expansion. Throws std::invalid_argument
// for a step the run does not have or a replica out of range.
void initState(ViewerState& s, std::unique_ptr<LoadedRun> primary,
               std::unique_ptr<LoadedRun> compare, const ViewerOptions& o);

// Builds the ImGui frame for a window of `width` x `height`; `dt`: seconds since the last frame.
void drawFrame(ViewerState& s, double width, double height, double dt);

// The step a run opens at: the one with the most avoidable idle (not the schedule's own bubbles).
int defaultStep(const analysis::PipelineResult& pl);

}  // namespace bubblescope::gui
