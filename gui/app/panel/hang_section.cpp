// The Hang section, there only when a run hung: what bubblescope hang found (docs/hang.md).
#include <imgui.h>

#include <algorithm>
#include <string>

#include "gui/app/panel/panel_sections.h"
#include "gui/app/panel/panel_widgets.h"

namespace bubblescope::gui {

// `bubblescope hang`'s findings: the diagnosis, then per mark what waits for what, each a link
// to its place on the timeline.
void hangSection(ViewerState& s) {
  bool any = false;
  for (const Pane& p : s.panes) any = any || p.hang();
  if (!any || !ImGui::CollapsingHeader("Hang", ImGuiTreeNodeFlags_DefaultOpen)) return;
  for (size_t k = 0; k < s.panes.size(); ++k) {
    const Pane& p = s.panes[k];
    const PipelineHang* h = p.hang();
    if (!h) continue;
    const HangOverlay& o = p.run->hangOverlay;
    const char* tag = s.panes.size() > 1 ? (k ? "B  " : "A  ") : "";
    ImGui::PushStyleColor(ImGuiCol_Text, toVec(rgba(0xfc, 0xa5, 0xa5)));
    ImGui::TextWrapped("%s%s", tag, o.diagnosis.c_str());
    ImGui::PopStyleColor();
    for (const std::string& d : o.details) ImGui::TextWrapped("also: %s", d.c_str());
    for (size_t i = 0; i < h->marks.size(); ++i) {
      const HangMark& m = h->marks[i];
      const std::string line = p.rows().stages[m.stage].label + "  " + m.tag;
      const std::string id = "##hang" + std::to_string(k) + "_" + std::to_string(i);
      if (ImGui::Selectable((line + id).c_str())) {
        s.reveal(k, m.start, std::min(m.end, m.start + s.view.span() / 2), m.stage, -1);
        s.picked = PickedBox{static_cast<int>(k), m.text, m.start, m.end};
      }
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", m.text.c_str());
    }
    ImGui::TextDisabled("the table: bubblescope hang %s", p.run->path.c_str());
  }
}

}  // namespace bubblescope::gui
