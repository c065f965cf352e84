#include "gui/app/toolbar.h"

#include <imgui.h>

#include <string>

#include "gui/app/live_view.h"
#include "gui/timeline/ruler.h"

namespace bubblescope::gui {
namespace {

constexpr const char* kHelp =
    "Navigate\n"
    "  wheel            zoom at the cursor (Ctrl: finely, Shift: fast)\n"
    "  drag             pan (and scroll the rows)\n"
    "  W / S, A / D     zoom in / out, pan left / right\n"
    "  Shift+drag, right-drag   select a range: its statistics show in the panel\n"
    "  click            pick a box: its details show in the panel\n"
    "  double-click     zoom to the box; on the step strip, select the step\n"
    "  F                fit the picked box, else the range, else the step\n"
    "  , / .            previous / next step\n"
    "  Esc              clear the range and the pick\n"
    "  Ctrl+F, Enter    search, next match (Shift+Enter: previous)\n"
    "  click a stage's name: open its GPU streams, NCCL, CUDA API and NVTX rows\n"
    "  wheel over the names: scroll the rows\n"
    "A running job (view --attach): the newest step is shown as it finishes, until you move;\n"
    "  the toolbar then counts the new steps and its button goes back to the newest\n"
    "A run that hung: the banner says why; hatched boxes are what each rank still had open, red\n"
    "  arrows who waits for whom (hover them); the `hang` box hides them";

std::string stepLabel(const analysis::StepInfo& s) {
  return "step " + std::to_string(s.number) + "  (" + formatDuration(s.duration()) + ")";
}

// A running job: the newest step while the view follows it; once the user went elsewhere, how many
// steps finished since, and the way back to the newest.
void liveButton(ViewerState& s) {
  ImGui::SameLine();
  if (s.live.follow.following()) {
    ImGui::TextDisabled("live: newest step %lld", static_cast<long long>(newestShown(s)));
    return;
  }
  const std::string label =
      std::to_string(s.live.follow.waiting()) + " new steps: show the newest###follow";
  if (ImGui::Button(label.c_str())) jumpToNewest(s);
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip(
        "The view stays where you went; this goes back to the newest step and "
        "follows it again");
  }
}

}  // namespace

void drawToolbar(ViewerState& s, const Rect& r) {
  ImGui::SetCursorScreenPos(ImVec2(static_cast<float>(r.x0 + 8), static_cast<float>(r.y0 + 5)));
  Pane& p = s.panes[0];
  const auto& steps = p.result().steps;
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Step");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(170);
  if (!steps.empty() && ImGui::BeginCombo("##step", stepLabel(steps[p.step]).c_str())) {
    for (size_t k = 0; k < steps.size(); ++k) {
      if (ImGui::Selectable(stepLabel(steps[k]).c_str(), static_cast<int>(k) == p.step)) {
        s.selectStep(static_cast<int>(k));
      }
    }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  if (ImGui::ArrowButton("##prevstep", ImGuiDir_Left)) s.selectStep(p.step - 1);
  ImGui::SameLine();
  if (ImGui::ArrowButton("##nextstep", ImGuiDir_Right)) s.selectStep(p.step + 1);
  ImGui::SameLine();
  if (ImGui::Button("Fit step")) s.fitStep();
  ImGui::SameLine();
  if (ImGui::Button("Fit run")) s.view = fitTo(s.view, s.extent().start, s.extent().end, 0.01);
  if (s.live.session) liveButton(s);

  const int replicas = static_cast<int>(p.run->model.pipelines.size());
  if (replicas > 1) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(130);
    const std::string current = "DP replica " + std::to_string(p.result().dpRank);
    if (ImGui::BeginCombo("##replica", current.c_str())) {
      for (int k = 0; k < replicas; ++k) {
        const int dp = p.run->result.pipelines[k].dpRank;
        // The replica the job's culprit names is marked, so a 32-replica job opens the right one.
        const std::string name = "DP replica " + std::to_string(dp) +
                                 (dp == p.run->result.job.culpritDp ? "  (culprit)" : "");
        if (ImGui::Selectable(name.c_str(), k == p.pipeline)) {
          for (Pane& q : s.panes)
            q.selectPipeline(std::min(k, static_cast<int>(q.run->model.pipelines.size()) - 1));
          s.rerunSearch();
        }
      }
      ImGui::EndCombo();
    }
  }
  ImGui::SameLine();
  if (ImGui::Button("Expand all")) {
    for (Pane& q : s.panes) q.expanded.assign(q.rows().stages.size(), true);
  }
  ImGui::SameLine();
  if (ImGui::Button("Collapse all")) {
    for (Pane& q : s.panes) q.expanded.assign(q.rows().stages.size(), false);
  }
  ImGui::SameLine();
  ImGui::Checkbox("arrows", &s.showArrows);
  if (p.hang()) {
    ImGui::SameLine();
    ImGui::Checkbox("hang", &s.showHang);
  }
  ImGui::SameLine();
  ImGui::Checkbox("panel", &s.showPanel);
  ImGui::SameLine();
  ImGui::TextDisabled("view %s", formatDuration(s.view.span()).c_str());
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", kHelp);
}

}  // namespace bubblescope::gui
