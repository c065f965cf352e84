#pragma once
// The side panel's sections, one file each in this folder, and kPanelSections: the one table
// drawSidePanel (side_panel.h) draws them from, top to bottom.
#include "gui/app/viewer_state.h"

namespace bubblescope::gui {

struct PanelSection {
  const char* name;  // its file's: "what_if" is what_if_section.cpp
  // Its collapsing header and what is under it, or nothing when it has nothing to show.
  void (*draw)(ViewerState& s);
};

void hangSection(ViewerState& s);
void runSection(ViewerState& s);
void breakdownSection(ViewerState& s);
void whatIfSection(ViewerState& s);
void searchSection(ViewerState& s);
void rangeSection(ViewerState& s);
void gapsSection(ViewerState& s);
void legendSection(ViewerState& s);
void warningsSection(ViewerState& s);

// In draw order. A new section: its file here, its declaration above and its row below, the file
// in gui/CMakeLists.txt.
inline constexpr PanelSection kPanelSections[] = {
    {"hang", hangSection},            // what `bubblescope hang` found, when a run hung
    {"run", runSection},              // the run's facts and S; loads a run to compare with
    {"breakdown", breakdownSection},  // where the time went: split bars, idle by class
    {"what_if", whatIfSection},       // the what-if scenarios
    {"search", searchSection},        // the search box and its matches
    {"range", rangeSection},          // the picked box and the selected range
    {"gaps", gapsSection},            // the largest avoidable gaps
    {"legend", legendSection},        // what the colors and marks mean
    {"warnings", warningsSection},    // the analysis' warnings
};

}  // namespace bubblescope::gui
