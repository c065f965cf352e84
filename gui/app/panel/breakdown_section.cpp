// The "Where the time went" section: a split bar per stage, for the selected step or the
// whole run, then the pipeline's idle by class.
#include <imgui.h>

#include <algorithm>
#include <string>

#include "analyzer/report/format.h"
#include "gui/app/panel/panel_sections.h"
#include "gui/app/panel/panel_widgets.h"

namespace bubblescope::gui {
namespace {

using analysis::formatPercent;
using analysis::formatRatio;
using analysis::kIdleClasses;
using analysis::Split;

Split stageSplit(const Pane& p, size_t stage, bool wholeRun) {
  const auto& st = p.result().stages[stage];
  if (wholeRun || st.perStep.empty()) return st.total;
  return st.perStep[std::min<size_t>(static_cast<size_t>(p.step), st.perStep.size() - 1)];
}

Split pipelineSplit(const Pane& p, bool wholeRun) {
  if (wholeRun) return p.result().total;
  Split sum;
  for (size_t s = 0; s < p.result().stages.size(); ++s) sum += stageSplit(p, s, false);
  return sum;
}

}  // namespace

void breakdownSection(ViewerState& s) {
  if (!ImGui::CollapsingHeader("Where the time went", ImGuiTreeNodeFlags_DefaultOpen)) return;
  const Pane& a = s.panes[0];
  if (ImGui::RadioButton("selected step", !s.wholeRun)) s.wholeRun = false;
  ImGui::SameLine();
  if (ImGui::RadioButton("all steps", s.wholeRun)) s.wholeRun = true;
  if (!s.wholeRun && !a.result().steps.empty()) {
    ImGui::SameLine();
    ImGui::TextDisabled("(step %lld)", static_cast<long long>(a.result().steps[a.step].number));
  }
  const bool two = s.panes.size() > 1;
  const float avail = ImGui::GetContentRegionAvail().x;
  const float label = 62, tail = 100;
  const float bar = std::max(40.0f, (avail - label - tail) / (two ? 2.0f : 1.0f) - (two ? 4 : 0));
  const size_t stages =
      std::max(a.result().stages.size(), two ? s.panes[1].result().stages.size() : 0);
  for (size_t st = 0; st < stages; ++st) {
    ImGui::Text("stage %zu", st);
    ImGui::SameLine(label);
    for (size_t k = 0; k < (two ? 2u : 1u); ++k) {
      const Pane& p = s.panes[k];
      if (st >= p.result().stages.size()) {
        ImGui::Dummy(ImVec2(bar, ImGui::GetTextLineHeight()));
      } else {
        const std::string id = "##bar" + std::to_string(k) + "_" + std::to_string(st);
        splitBar(stageSplit(p, st, s.wholeRun), bar, id.c_str());
      }
      ImGui::SameLine();
    }
    const Pane& p = s.panes[0];
    if (st < p.result().stages.size()) {
      const Split sp = stageSplit(p, st, s.wholeRun);
      ImGui::Text("%5s idle  S %s", formatPercent(analysis::share(sp.idle, sp.span), 0).c_str(),
                  formatRatio(p.result().stages[st].slowdown).c_str());
      if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip(
            "S_s: the step time if only stage %zu kept its measured costs, over the ideal", st);
      }
    } else {
      ImGui::NewLine();
    }
  }
  // The pipeline's idle by class, with the legend's colors.
  ImGui::Spacing();
  for (size_t k = 0; k < (two ? 2u : 1u); ++k) {
    const Split sp = pipelineSplit(s.panes[k], s.wholeRun);
    ImGui::TextDisabled("%sidle %s of %s stage-time", two ? (k ? "B  " : "A  ") : "",
                        formatPercent(analysis::share(sp.idle, sp.span)).c_str(),
                        ms(sp.span).c_str());
    for (int c = 0; c < kIdleClasses; ++c) {
      if (sp.idleByClass[c] <= 0) continue;
      swatch(idleColor(analysis::idleClassAt(c)));
      ImGui::Text("%-16s %10s  %6s", analysis::idleClassName(analysis::idleClassAt(c)),
                  ms(sp.idleByClass[c]).c_str(),
                  formatPercent(analysis::share(sp.idleByClass[c], sp.span)).c_str());
    }
  }
}

}  // namespace bubblescope::gui
