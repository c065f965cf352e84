// The Selection section: the picked box's text, and the selected range's split per stage and
// its ops.
#include <imgui.h>

#include <algorithm>
#include <string>

#include "analyzer/report/format.h"
#include "gui/app/panel/panel_sections.h"
#include "gui/app/panel/panel_widgets.h"
#include "gui/model/item_text.h"
#include "gui/timeline/ruler.h"

namespace bubblescope::gui {

using analysis::formatPercent;
using analysis::Split;

void rangeSection(ViewerState& s) {
  if (!s.range && !s.picked) return;
  if (!ImGui::CollapsingHeader("Selection", ImGuiTreeNodeFlags_DefaultOpen)) return;
  if (s.picked) {
    ImGui::TextWrapped("%s", s.picked->text.c_str());
    if (ImGui::SmallButton("zoom to it (double-click)")) {
      const TimeNs off = s.paneOffset(s.picked->pane);
      s.view = fitTo(s.view, s.picked->start - off, s.picked->end - off, 0.15);
    }
    ImGui::Separator();
  }
  if (!s.range) return;
  Pane& p = s.panes[0];
  if (!s.rangeStats || s.rangeStatsKey != *s.range || s.rangeStatsPipeline != p.pipeline) {
    s.rangeStats = rangeStats(p.rows(), *s.range);
    s.rangeStatsKey = *s.range;
    s.rangeStatsPipeline = p.pipeline;
  }
  const RangeStats& r = *s.rangeStats;
  ImGui::Text("range %s to %s (%s)", formatDuration(r.range.start - p.origin()).c_str(),
              formatDuration(r.range.end - p.origin()).c_str(),
              formatDuration(r.range.duration()).c_str());
  ImGui::SameLine();
  if (ImGui::SmallButton("zoom")) s.view = fitTo(s.view, r.range.start, r.range.end, 0.02);
  ImGui::SameLine();
  if (ImGui::SmallButton("clear")) s.range.reset();
  const float width = ImGui::GetContentRegionAvail().x - 150;
  for (size_t st = 0; st < r.stages.size(); ++st) {
    const StageRangeStats& x = r.stages[st];
    Split sp;
    sp.span = x.ops + x.idle + x.other;
    sp.compute = x.ops;
    sp.otherBusy = x.other;
    sp.idle = x.idle;
    sp.idleByClass = x.idleByClass;
    ImGui::Text("stage %zu", st);
    ImGui::SameLine(62);
    splitBar(sp, std::max(40.0f, width), ("##range" + std::to_string(st)).c_str());
    ImGui::SameLine();
    ImGui::Text("busy %s", formatPercent(analysis::share(x.ops, r.range.duration()), 0).c_str());
  }
  ImGui::TextDisabled("green: in ops, grey: other (transfers, tail), classes: idle");
  ImGui::Text("%zu ops in the range", r.ops.size());
  if (ImGui::BeginChild("##rangeops", ImVec2(0, 140), true)) {
    ImGuiListClipper clip;
    clip.Begin(static_cast<int>(r.ops.size()));
    while (clip.Step()) {
      for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
        const auto& o = p.result().ops[r.ops[i]];
        const std::string line = "stage " + std::to_string(o.stage) + "  " + opName(o.op) + "  " +
                                 formatDuration(o.start - p.origin()) + "  (" +
                                 formatDuration(o.end - o.start) + ")";
        if (ImGui::Selectable((line + "##op" + std::to_string(i)).c_str())) {
          s.reveal(0, o.start, o.end, o.stage, -1);
        }
      }
    }
  }
  ImGui::EndChild();
}

}  // namespace bubblescope::gui
