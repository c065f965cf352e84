// The "What if" section: each run's what-if scenarios, their step time, bubble and speedup.
#include <imgui.h>

#include <string>

#include "analyzer/report/format.h"
#include "gui/app/panel/panel_sections.h"
#include "gui/app/panel/panel_widgets.h"

namespace bubblescope::gui {
namespace {

using analysis::formatPercent;
using analysis::formatRatio;

void whatIfTable(const Pane& p) {
  if (!ImGui::BeginTable(("whatif" + p.run->path).c_str(), 4,
                         ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH |
                             ImGuiTableFlags_SizingStretchProp)) {
    return;
  }
  ImGui::TableSetupColumn("scenario", ImGuiTableColumnFlags_WidthStretch, 2.2f);
  ImGui::TableSetupColumn("step", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("bubble", ImGuiTableColumnFlags_WidthStretch, 0.9f);
  ImGui::TableSetupColumn("speedup", ImGuiTableColumnFlags_WidthStretch, 0.9f);
  ImGui::TableHeadersRow();
  for (const auto& w : p.result().whatIf) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    if (w.available) {
      ImGui::TextUnformatted(w.scenario.c_str());
    } else {
      ImGui::TextDisabled("%s", w.scenario.c_str());
    }
    if (!w.note.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", w.note.c_str());
    ImGui::TableNextColumn();
    if (!w.available) {
      ImGui::TextDisabled("n/a");
      ImGui::TableNextColumn();
      ImGui::TableNextColumn();
      continue;
    }
    ImGui::TextUnformatted(ms(w.stepTime).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(formatPercent(w.bubbleRate).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(formatRatio(w.speedup).c_str());
  }
  ImGui::EndTable();
}

}  // namespace

void whatIfSection(ViewerState& s) {
  if (!ImGui::CollapsingHeader("What if", ImGuiTreeNodeFlags_DefaultOpen)) return;
  for (size_t k = 0; k < s.panes.size(); ++k) {
    if (s.panes.size() > 1) ImGui::TextDisabled("%s", k ? "B" : "A");
    whatIfTable(s.panes[k]);
  }
}

}  // namespace bubblescope::gui
