#pragma once
// The side panel's sections, one file each in this folder, drawn top to bottom by drawSidePanel
// (side_panel.h). Each draws its own collapsing header, or nothing when it has nothing to show.
#include "gui/app/viewer_state.h"

namespace bubblescope::gui {

void hangSection(ViewerState& s);            // what `bubblescope hang` found, when a run hung
void runSection(ViewerState& s);             // the run's facts and S; loads a run to compare with
void breakdownSection(ViewerState& s);       // where the time went: split bars, idle by class
void whatIfSection(const ViewerState& s);    // the what-if scenarios
void searchSection(ViewerState& s);          // the search box and its matches
void rangeSection(ViewerState& s);           // the picked box and the selected range
void gapsSection(ViewerState& s);            // the largest avoidable gaps
void legendSection();                        // what the colors and marks mean
void warningsSection(const ViewerState& s);  // the analysis' warnings

}  // namespace bubblescope::gui
