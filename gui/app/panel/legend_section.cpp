// The Legend section: what each color and mark on the timeline means.
#include <imgui.h>

#include <utility>

#include "gui/app/panel/panel_sections.h"
#include "gui/app/panel/panel_widgets.h"

namespace bubblescope::gui {

using analysis::kIdleClasses;

void legendSection(ViewerState&) {  // the same for every run
  if (!ImGui::CollapsingHeader("Legend")) return;
  using analysis::OpKind;
  const std::pair<OpKind, const char*> kinds[] = {{OpKind::F, "F  forward"},
                                                  {OpKind::B, "B  input gradient"},
                                                  {OpKind::W, "W  weight gradient"},
                                                  {OpKind::BW, "BW backward (B and W together)"}};
  for (const auto& [k, text] : kinds) {
    swatch(opColor(k));
    ImGui::TextUnformatted(text);
  }
  swatch(ghostColor(OpKind::F), true);
  ImGui::TextUnformatted("ideal schedule (thin row under each stage)");
  for (int c = 0; c < kIdleClasses; ++c) {
    swatch(idleColor(analysis::idleClassAt(c)));
    ImGui::Text("%s", analysis::idleClassName(analysis::idleClassAt(c)));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", analysis::kIdleClassTable[c].description);
  }
  swatch(computeKernelColor());
  ImGui::TextUnformatted("kernel");
  swatch(commKernelColor());
  ImGui::TextUnformatted("NCCL kernel or call: its transfer (exposed communication)");
  ImGui::TextWrapped(
      "An NCCL kernel that waited for its peers first shows the wait in the idle color of its "
      "class: the wait is idle, not communication.");
  swatch(memcpyColor());
  ImGui::TextUnformatted("memcpy");
  swatch(memsetColor());
  ImGui::TextUnformatted("memset");
  swatch(tailColor());
  ImGui::TextUnformatted("other busy (grad sync, optimizer)");
  ImGui::TextWrapped(
      "Dark band along a box: several events too narrow to draw apart (hover for their count). "
      "White "
      "outline: a search match. Lines: a send on one stage to its receive on "
      "another.");
  ImGui::Spacing();
  ImGui::TextUnformatted("A run that hung (bubblescope hang):");
  swatch(kHangOpenFill);
  ImGui::TextWrapped(
      "hatched, red outline: still open when the rank was last seen (a range, an "
      "NCCL call without its partner), tagged \"open\"");
  swatch(kHangUnwoundFill);
  ImGui::TextWrapped("red outline: a receive the rank unwound out of as its peer vanished");
  swatch(kHangStoppedFill);
  ImGui::TextWrapped("red outline: stopped or died outside any wait, since its last op");
  swatch(kLastSeen);
  ImGui::TextUnformatted("white bar: the rank's last sign of life");
  swatch(kHangRed);
  ImGui::TextWrapped(
      "red arrow: waits for (the wait-for graph), from the wait's start on the "
      "waiting stage to the stage it waits on");
}

}  // namespace bubblescope::gui
