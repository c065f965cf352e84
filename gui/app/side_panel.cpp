#include "gui/app/side_panel.h"

#include <imgui.h>

#include "gui/app/panel/panel_sections.h"
#include "gui/app/panel/panel_widgets.h"

namespace bubblescope::gui {

void drawSidePanel(ViewerState& s, const Rect& r) {
  ImGui::SetNextWindowPos(ImVec2(static_cast<float>(r.x0), static_cast<float>(r.y0)));
  ImGui::SetNextWindowSize(ImVec2(static_cast<float>(r.w()), static_cast<float>(r.h())));
  ImGui::PushStyleColor(ImGuiCol_WindowBg, toVec(rgba(0x23, 0x27, 0x2e)));
  ImGui::Begin("##panel", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus);
  ImGui::PopStyleColor();
  // Scrolling the panel needs a scroll bar: NoDecoration hid it, so the content is a child. The
  // child paints no background of its own: on a software rasteriser a second panel-sized layer
  // costs over a millisecond a frame, and the panel's color shows through.
  ImGui::BeginChild("##panelcontent", ImVec2(0, 0), false, ImGuiWindowFlags_NoBackground);
  if (!s.message.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, toVec(rgba(0xfc, 0xa5, 0xa5)));
    ImGui::TextWrapped("%s", s.message.c_str());
    ImGui::PopStyleColor();
    if (ImGui::SmallButton("dismiss")) s.message.clear();
    ImGui::Separator();
  }
  for (const PanelSection& section : kPanelSections) section.draw(s);
  ImGui::EndChild();
  ImGui::End();
}

}  // namespace bubblescope::gui
