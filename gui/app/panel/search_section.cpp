// The Search section: the search box, its match count, and the arrows that jump from match
// to match.
#include <imgui.h>

#include <cstdint>

#include "gui/app/panel/panel_sections.h"
#include "gui/model/item_text.h"

namespace bubblescope::gui {
namespace {

void jumpTo(ViewerState& s, bool forward) {
  Pane& p = s.panes[0];
  const auto m = forward ? p.search.next(p.rows(), s.searchCursor)
                         : p.search.previous(p.rows(), s.searchCursor);
  if (!m) return;
  s.searchCursor = m->start;
  const LaneRef ref = laneRef(p.rows(), m->lane);
  s.reveal(0, m->start, m->end, ref.stage, ref.row);
  const Row* row = rowOf(p.rows().stages[ref.stage], ref.row);
  s.picked = PickedBox{
      0, itemTooltip(p.run->model, p.rows(), *row, row->lanes[ref.lane].item[m->pos], p.origin()),
      m->start, m->end};
}

}  // namespace

void searchSection(ViewerState& s) {
  if (!ImGui::CollapsingHeader("Search", ImGuiTreeNodeFlags_DefaultOpen)) return;
  if (s.focusSearch) {
    ImGui::SetKeyboardFocusHere();
    s.focusSearch = false;
  }
  ImGui::SetNextItemWidth(-80);
  const bool enter =
      ImGui::InputTextWithHint("##search", "op, kernel, NVTX, NCCL name (Ctrl+F)", s.searchText,
                               sizeof s.searchText, ImGuiInputTextFlags_EnterReturnsTrue);
  if (s.panes[0].search.query != s.searchText) {
    s.rerunSearch();
    s.searchCursor = INT64_MIN;
  }
  ImGui::SameLine();
  if (ImGui::ArrowButton("##prev", ImGuiDir_Left)) jumpTo(s, false);
  ImGui::SameLine();
  if (ImGui::ArrowButton("##next", ImGuiDir_Right) || enter) jumpTo(s, !ImGui::GetIO().KeyShift);
  if (s.searchText[0]) {
    ImGui::Text("%zu matches", s.panes[0].search.total);
    if (s.panes.size() > 1) {
      ImGui::SameLine();
      ImGui::Text("(B: %zu)", s.panes[1].search.total);
    }
  }
}

}  // namespace bubblescope::gui
