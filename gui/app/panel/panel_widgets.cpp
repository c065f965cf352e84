// The side panel's shared drawing pieces (panel_widgets.h).
#include "gui/app/panel/panel_widgets.h"

#include "analyzer/report/format.h"

namespace bubblescope::gui {

using analysis::formatPercent;
using analysis::kIdleClasses;

ImVec4 toVec(Rgba c) {
  return ImGui::ColorConvertU32ToFloat4(c);
}

void swatch(Rgba c, bool ghost) {
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const float h = ImGui::GetTextLineHeight();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (ghost) {
    dl->AddRectFilled(ImVec2(at.x, at.y + h * 0.3f), ImVec2(at.x + 14, at.y + h * 0.7f), c);
  } else {
    dl->AddRectFilled(ImVec2(at.x, at.y + 1), ImVec2(at.x + 14, at.y + h - 1), c);
  }
  ImGui::Dummy(ImVec2(16, h));
  ImGui::SameLine();
}

std::string ms(TimeNs t) {
  return analysis::formatMs(t, 2) + " ms";
}

void splitBar(const analysis::Split& sp, float width, const char* id) {
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const float h = ImGui::GetTextLineHeight();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(at, ImVec2(at.x + width, at.y + h), rgba(0x2a, 0x2e, 0x35));
  if (sp.span > 0) {
    float x = at.x;
    auto part = [&](TimeNs t, Rgba c) {
      const float w =
          width * static_cast<float>(static_cast<double>(t) / static_cast<double>(sp.span));
      if (w <= 0) return;
      dl->AddRectFilled(ImVec2(x, at.y + 1), ImVec2(x + w, at.y + h - 1), c);
      x += w;
    };
    part(sp.compute, opColor(analysis::OpKind::F));
    part(sp.exposedComm, commKernelColor());
    part(sp.otherBusy, tailColor());
    for (int c = 0; c < kIdleClasses; ++c)
      part(sp.idleByClass[c], idleColor(analysis::idleClassAt(c)));
  }
  ImGui::InvisibleButton(id, ImVec2(width, h));
  if (ImGui::IsItemHovered() && sp.span > 0) {
    ImGui::BeginTooltip();
    ImGui::Text("span %s", ms(sp.span).c_str());
    ImGui::Text("compute %s (%s)", ms(sp.compute).c_str(),
                formatPercent(analysis::share(sp.compute, sp.span)).c_str());
    ImGui::Text("exposed comm %s", ms(sp.exposedComm).c_str());
    ImGui::Text("other busy %s", ms(sp.otherBusy).c_str());
    ImGui::Text("idle %s (%s)", ms(sp.idle).c_str(),
                formatPercent(analysis::share(sp.idle, sp.span)).c_str());
    for (int c = 0; c < kIdleClasses; ++c) {
      if (sp.idleByClass[c] > 0) {
        ImGui::Text("  %s %s", ms(sp.idleByClass[c]).c_str(),
                    analysis::idleClassName(analysis::idleClassAt(c)));
      }
    }
    ImGui::EndTooltip();
  }
}

}  // namespace bubblescope::gui
