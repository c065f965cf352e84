// The "What if" section: each run's what-if scenarios, their step time, bubble, speedup and the
// activations they hold; for a run that hung, why there are none.
#include <imgui.h>

#include <string>

#include "analyzer/report/format.h"
#include "analyzer/report/sections/what_if_section.h"
#include "gui/app/panel/panel_sections.h"
#include "gui/app/panel/panel_widgets.h"

namespace bubblescope::gui {
namespace {

using analysis::formatPercent;
using analysis::formatRatio;

// "per stage: 4, 3, 2, 1" (with bytes where known), for a tooltip.
std::string perStage(const analysis::WhatIf& w) {
  std::string t = "activations per stage, in microbatches of the measured job:";
  for (size_t s = 0; s < w.activations.size(); ++s) {
    t += (s ? ", " : " ") + analysis::formatCount(w.activations[s]);
    if (s < w.activationBytes.size()) t += " (" + analysis::formatBytes(w.activationBytes[s]) + ")";
  }
  return t;
}

void whatIfTable(const Pane& p) {
  const analysis::PipelineResult& pl = p.result();
  if (!pl.whatIfWithheld.empty()) {
    ImGui::TextWrapped("None: %s.", pl.whatIfWithheld.c_str());
    return;
  }
  if (!ImGui::BeginTable(("whatif" + p.run->path).c_str(), 5,
                         ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH |
                             ImGuiTableFlags_SizingStretchProp)) {
    return;
  }
  ImGui::TableSetupColumn("scenario", ImGuiTableColumnFlags_WidthStretch, 2.2f);
  ImGui::TableSetupColumn("step", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("bubble", ImGuiTableColumnFlags_WidthStretch, 0.9f);
  ImGui::TableSetupColumn("speedup", ImGuiTableColumnFlags_WidthStretch, 0.9f);
  ImGui::TableSetupColumn("act.", ImGuiTableColumnFlags_WidthStretch, 0.9f);
  ImGui::TableHeadersRow();
  for (const auto& w : pl.whatIf) {
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
      ImGui::TableNextColumn();
      continue;
    }
    ImGui::TextUnformatted(ms(w.stepTime).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(formatPercent(w.bubbleRate).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(formatRatio(w.speedup).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(analysis::activationCell(w).c_str());
    if (!w.activations.empty() && ImGui::IsItemHovered()) {
      ImGui::SetTooltip("%s", perStage(w).c_str());
    }
  }
  ImGui::EndTable();
  if (const analysis::WhatIf* best = analysis::bestWhatIf(pl); best && best->speedup > 1.005) {
    ImGui::TextWrapped("best: %s, %s; %s", best->scenario.c_str(),
                       formatRatio(best->speedup).c_str(),
                       analysis::whatIfAssumptions(pl, *best).c_str());
  }
  ImGui::TextDisabled("%s", "act.: the most activations a stage holds, in measured microbatches");
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("%s", analysis::activationColumnNote(pl).c_str());
  }
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
