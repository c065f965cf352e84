// The "Largest avoidable gaps" section: each gap a link to its place on the timeline, with
// what it is blamed on.
#include <imgui.h>

#include <string>

#include "gui/app/panel/panel_sections.h"
#include "gui/app/panel/panel_widgets.h"
#include "gui/model/item_text.h"

namespace bubblescope::gui {

void gapsSection(ViewerState& s) {
  const Pane& p = s.panes[0];
  const auto& pl = p.result();
  if (pl.topGaps.empty()) return;
  if (!ImGui::CollapsingHeader("Largest avoidable gaps", ImGuiTreeNodeFlags_DefaultOpen)) return;
  for (int gi : pl.topGaps) {
    const auto& g = pl.gaps[gi];
    swatch(idleColor(g.dominant));
    const std::string head = "stage " + std::to_string(g.stage) + ", step " +
                             std::to_string(pl.steps[g.step].number) + ": " + ms(g.idle) + " " +
                             analysis::idleClassName(g.dominant);
    if (ImGui::Selectable((head + "##gap" + std::to_string(gi)).c_str())) {
      s.reveal(0, g.start, g.end, g.stage, -1);
      s.picked =
          PickedBox{0, gapTooltip(p.rows(), static_cast<uint32_t>(gi), p.origin()), g.start, g.end};
    }
    if (!g.blame.text.empty()) {
      ImGui::Indent(22);
      ImGui::PushTextWrapPos(0);
      ImGui::TextDisabled("%s", g.blame.text.c_str());
      ImGui::PopTextWrapPos();
      ImGui::Unindent(22);
    }
  }
}

}  // namespace bubblescope::gui
