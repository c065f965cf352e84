// The Warnings section: the analysis' warnings, one header per run.
#include <imgui.h>

#include <string>

#include "gui/app/panel/panel_sections.h"

namespace bubblescope::gui {

void warningsSection(ViewerState& s) {
  for (size_t k = 0; k < s.panes.size(); ++k) {
    const auto& w = s.panes[k].run->result.warnings;
    if (w.empty()) continue;
    const std::string title =
        std::string("Warnings") + (s.panes.size() > 1 ? (k ? " (B)" : " (A)") : "");
    if (!ImGui::CollapsingHeader(title.c_str())) continue;
    for (const auto& line : w) ImGui::BulletText("%s", line.c_str());
  }
}

}  // namespace bubblescope::gui
