#include "gui/app/timeline_pane.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "gui/model/item_text.h"
#include "gui/timeline/navigation.h"
#include "gui/timeline/ruler.h"

namespace bubblescope::gui {
namespace {

// A press that moves less than this is a click, not a drag.
constexpr float kClickSlopPx = 3;
// Ticks at least this far apart keep their labels apart.
constexpr double kTickSpacingPx = 110;
// One wheel notch over the labels scrolls this much.
constexpr double kWheelScrollPx = 48;

ImVec2 v(double x, double y) {
  return ImVec2(static_cast<float>(x), static_cast<float>(y));
}

Rgba textOn(Rgba fill) {
  const auto c = rgbOf(fill);
  const double luma = 0.299 * c.r + 0.587 * c.g + 0.114 * c.b;
  return luma > 140 ? kDarkText : kText;
}

const StageRows& stageOf(const Pane& p, const PlacedRow& pr) {
  return p.rows().stages[pr.stage];
}

// What the user points at, in words.
std::string boxTooltip(const Pane& p, const DrawBox& b) {
  const PipelineRows& rows = p.rows();
  const PlacedRow& pr = p.layout.rows[b.row];
  const StageRows& sr = stageOf(p, pr);
  if (b.lane == kGapLane) {
    if (b.count == 1) return gapTooltip(rows, sr.gaps.item[b.first], p.origin());
    const TimeNs start = sr.gaps.start[b.first], end = sr.gaps.end[b.first + b.count - 1];
    TimeNs idle = 0;
    for (uint32_t i = b.first; i < b.first + b.count; ++i)
      idle += rows.result->gaps[sr.gaps.item[i]].idle;
    return std::to_string(b.count) + " idle gaps too narrow to draw apart (zoom in), " +
           formatDuration(idle) + " idle in all\n" + formatDuration(start - p.origin()) + " to " +
           formatDuration(end - p.origin()) + " from the step start";
  }
  const Row* row = rowOf(sr, pr.row);
  const Track& lane = row->lanes[b.lane];
  if (b.count > 1) {
    return foldedTooltip(*row, b.count, lane.start[b.first], lane.end[b.first + b.count - 1],
                         p.origin());
  }
  return itemTooltip(p.run->model, rows, *row, lane.item[b.first], p.origin());
}

void drawFoldMark(ImDrawList* dl, const DrawBox& b, Rgba color) {
  // A folded run (several items narrower than a few pixels) gets a darker band along its
  // middle. Tracy draws a zig-zag there; on a software rasteriser the zig-zags of a whole run in
  // view cost ~6 ms a frame, a band of two triangles next to nothing.
  // Ghost rows are a glance at the ideal schedule: their folds go unmarked.
  if (b.x1 - b.x0 < 4 || b.y1 - b.y0 < 6 || (b.flags & kBoxGhost)) return;
  const float mid = (b.y0 + b.y1) / 2;
  dl->AddRectFilled(ImVec2(b.x0 + 1, mid - 1), ImVec2(b.x1 - 1, mid + 1), color);
}

void drawBoxes(ImDrawList* dl, const Pane& p) {
  for (const DrawBox& b : p.records.boxes) {
    float y0 = b.y0, y1 = b.y1;
    if (b.flags & kBoxIdle) {
      y0 += 3;  // idle sits inside the row, ops fill it: the two never read alike
      y1 -= 3;
    }
    dl->AddRectFilled(ImVec2(b.x0, y0), ImVec2(b.x1, y1), b.fill);
    if (b.flags & kBoxFolded) drawFoldMark(dl, b, darker(b.fill, 0.45));
    if (b.flags & kBoxSearchHit) {
      dl->AddRect(ImVec2(b.x0 - 1, y0 - 1), ImVec2(b.x1 + 1, y1 + 1), kSearchHit, 0, 0, 2.0f);
    }
    if (!b.label.empty()) {
      const float ty = (y0 + y1) / 2 - ImGui::GetFontSize() / 2;
      dl->AddText(ImVec2(b.x0 + 2, ty), textOn(b.fill), b.label.c_str());
    }
  }
}

void drawArrows(ImDrawList* dl, const Pane& p) {
  for (const DrawArrow& a : p.records.arrows) {
    dl->AddLine(ImVec2(a.x0, a.y0), ImVec2(a.x1, a.y1), a.color, 1.0f);
    // The head: a small triangle pointing along the line at its end.
    const float dx = a.x1 - a.x0, dy = a.y1 - a.y0;
    const float len = std::sqrt(dx * dx + dy * dy);
    if (len < 6) continue;
    const float ux = dx / len, uy = dy / len;
    const ImVec2 tip(a.x1, a.y1);
    dl->AddTriangleFilled(tip, ImVec2(a.x1 - 6 * ux + 3 * uy, a.y1 - 6 * uy - 3 * ux),
                          ImVec2(a.x1 - 6 * ux - 3 * uy, a.y1 - 6 * uy + 3 * ux), a.color);
  }
}

// Diagonal strokes this far apart hatch an open box: open reads apart from any op at a glance.
constexpr float kHatchPx = 7;

void drawHang(ImDrawList* dl, const Pane& p) {
  const HangRecords& h = p.hangRecords;
  for (const HangBox& b : h.boxes) {
    dl->AddRectFilled(ImVec2(b.x0, b.y0), ImVec2(b.x1, b.y1), b.fill);
    if (b.hatched) {
      dl->PushClipRect(ImVec2(b.x0, b.y0), ImVec2(b.x1, b.y1), true);
      const float hgt = b.y1 - b.y0;
      // Only the strokes that meet the plot: a box may run far past the view's edges.
      const ImVec2 clip = dl->GetClipRectMin(), clipMax = dl->GetClipRectMax();
      const float from = std::max(b.x0, clip.x) - hgt, to = std::min(b.x1, clipMax.x);
      for (float x = from - std::fmod(from - b.x0, kHatchPx); x < to; x += kHatchPx) {
        dl->AddLine(ImVec2(x, b.y1), ImVec2(x + hgt, b.y0), kHangHatch, 1.0f);
      }
      dl->PopClipRect();
    }
    dl->AddRect(ImVec2(b.x0, b.y0), ImVec2(b.x1, b.y1), b.outline, 0, 0, 2.0f);
    if (!b.label.empty()) {
      const float ty = (b.y0 + b.y1) / 2 - ImGui::GetFontSize() / 2;
      // A dark plate under the tag so it reads over the hatching.
      const ImVec2 size = ImGui::CalcTextSize(b.label.c_str());
      dl->AddRectFilled(ImVec2(b.labelX - 1, ty), ImVec2(b.labelX + size.x + 1, ty + size.y),
                        b.fill);
      dl->AddText(ImVec2(b.labelX, ty), kText, b.label.c_str());
    }
  }
  for (const LastSeenBar& b : h.lastSeen) {
    dl->AddRectFilled(ImVec2(b.x - 1, b.y0), ImVec2(b.x + 2, b.y1), kLastSeen);
  }
  for (const WaitArrowRecord& a : h.arrows) {
    dl->AddLine(ImVec2(a.x0, a.y0), ImVec2(a.x1, a.y1), kHangRed, 2.0f);
    const float dir = a.y1 > a.y0 ? 1.0f : -1.0f;
    dl->AddCircleFilled(ImVec2(a.x0, a.y0), 3.0f, kHangRed);
    dl->AddTriangleFilled(ImVec2(a.x1, a.y1), ImVec2(a.x1 - 5, a.y1 - 8 * dir),
                          ImVec2(a.x1 + 5, a.y1 - 8 * dir), kHangRed);
  }
}

void drawRowBackgrounds(ImDrawList* dl, const Pane& p, const PaneGeometry& g) {
  // Even stages keep the background the window was cleared to: only odd ones are painted, in the
  // label column whole and in the plot where no box covers them (the draw records' backdrops).
  for (const PlacedRow& pr : p.layout.rows) {
    if (pr.stage % 2 == 0) continue;
    dl->AddRectFilled(v(g.labels.x0, pr.y), v(g.plot.x0, pr.y + pr.h), kRowAltBackground);
  }
  dl->PushClipRect(v(g.plot.x0, g.plot.y0), v(g.plot.x1, g.plot.y1), true);
  for (const Backdrop& b : p.records.backdrops) {
    dl->AddRectFilled(ImVec2(b.x0, b.y0), ImVec2(b.x1, b.y1), kRowAltBackground);
  }
  dl->PopClipRect();
}

void drawLabels(ImDrawList* dl, const Pane& p, const PaneGeometry& g) {
  dl->PushClipRect(v(g.labels.x0, g.labels.y0), v(g.labels.x1, g.labels.y1), true);
  const float font = ImGui::GetFontSize();
  const double charW = ImGui::CalcTextSize("M").x;
  for (const PlacedRow& pr : p.layout.rows) {
    const StageRows& sr = stageOf(p, pr);
    const double ty = pr.y + std::min(pr.h, 22.0) / 2 - font / 2;
    if (pr.row == -1) {
      const bool open = static_cast<size_t>(pr.stage) < p.expanded.size() && p.expanded[pr.stage];
      const double cx = g.labels.x0 + 10, cy = pr.y + pr.h / 2;
      if (!sr.detail.empty()) {
        if (open) {
          dl->AddTriangleFilled(v(cx - 4, cy - 2), v(cx + 4, cy - 2), v(cx, cy + 3), kText);
        } else {
          dl->AddTriangleFilled(v(cx - 2, cy - 4), v(cx - 2, cy + 4), v(cx + 3, cy), kText);
        }
      }
      std::string text = sr.label;
      if (p.run->model.run) {
        const auto& meta = p.run->model.run->ranks[sr.rank].meta;
        text += "  rank " + std::to_string(meta.rank >= 0 ? meta.rank : sr.rank);
      }
      dl->AddText(v(g.labels.x0 + 20, ty), kText, text.c_str());
    } else if (pr.row >= 0) {
      const Row& row = sr.detail[pr.row];
      const std::string text = fitLabel(row.label, g.labels.w() - 30, charW);
      dl->AddText(v(g.labels.x0 + 24, ty), rgba(0xa0, 0xa6, 0xb0), text.c_str());
    }
  }
  dl->PopClipRect();
}

void drawRuler(ImDrawList* dl, const Pane& p, const PaneGeometry& g,
               const std::vector<Tick>& ticks) {
  dl->AddRectFilled(v(g.ruler.x0, g.ruler.y0), v(g.ruler.x1, g.ruler.y1), rgba(0x2a, 0x2e, 0x35));
  dl->PushClipRect(v(g.ruler.x0, g.ruler.y0), v(g.ruler.x1, g.ruler.y1), true);
  for (const Tick& t : ticks) {
    dl->AddLine(v(t.x, g.ruler.y1 - 6), v(t.x, g.ruler.y1), kText);
    dl->AddText(v(t.x + 3, g.ruler.y0 + 2), kText, t.label.c_str());
  }
  dl->PopClipRect();
  (void)p;
}

void drawStepStrip(ImDrawList* dl, const Pane& p, const PaneGeometry& g) {
  dl->PushClipRect(v(g.steps.x0, g.steps.y0), v(g.steps.x1, g.steps.y1), true);
  for (const StepMark& s : p.records.steps) {
    const bool selected = s.step == p.step;
    const Rgba fill = selected ? rgba(0x4b, 0x55, 0x63)
                               : (s.step % 2 ? rgba(0x33, 0x38, 0x40) : rgba(0x2c, 0x31, 0x38));
    dl->AddRectFilled(ImVec2(s.x0, static_cast<float>(g.steps.y0)),
                      ImVec2(s.x1 - 1, static_cast<float>(g.steps.y1 - 1)), fill);
    if (!s.label.empty()) {
      dl->AddText(ImVec2(s.x0 + 3, static_cast<float>(g.steps.y0 + 2)), kText, s.label.c_str());
    }
  }
  dl->PopClipRect();
}

void drawScrollHint(ImDrawList* dl, const Pane& p, const PaneGeometry& g) {
  const double content = p.layout.contentHeight, visible = g.plot.h();
  if (content <= visible) return;
  const double top = g.plot.y0 + visible * (p.scroll / content);
  const double h = std::max(12.0, visible * visible / content);
  dl->AddRectFilled(v(g.plot.x1 - 5, top), v(g.plot.x1 - 1, top + h), rgba(0x9c, 0xa3, 0xaf, 0x90));
}

// The pane's view: pane 0's, shifted to the aligned step of this pane's run.
TimeMapping paneMapping(const ViewerState& s, size_t index, const PaneGeometry& g) {
  TimeMapping m = shifted(s.view, s.paneOffset(index));
  m.x0 = g.plot.x0;
  m.width = std::max(1.0, g.plot.w());
  return m;
}

void handleMouse(ViewerState& s, size_t index, const PaneGeometry& g, bool hovered) {
  Pane& p = s.panes[index];
  const ImGuiIO& io = ImGui::GetIO();
  const ImVec2 mouse = io.MousePos;
  const bool overPlot =
      hovered && (g.plot.contains(mouse.x, mouse.y) || g.ruler.contains(mouse.x, mouse.y) ||
                  g.steps.contains(mouse.x, mouse.y));
  const bool overLabels = hovered && g.labels.contains(mouse.x, mouse.y);
  const TimeNs offset = s.paneOffset(index);

  if (overPlot && (io.MouseWheel != 0 || io.MouseWheelH != 0)) {
    NavInput in;
    in.wheel = io.MouseWheel;
    in.mouseX = mouse.x;
    in.overPlot = true;
    in.fine = io.KeyCtrl;
    in.fast = io.KeyShift;
    in.dragDx = -io.MouseWheelH * 40;
    s.view = navigate(s.view, in, s.extent());
  }
  if (overLabels && io.MouseWheel != 0) p.scroll -= io.MouseWheel * kWheelScrollPx;

  // Presses start a pan (left), or a range selection (Shift+left, right).
  const bool inPlot = hovered && g.plot.contains(mouse.x, mouse.y);
  if (s.drag == DragMode::None && inPlot) {
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
      s.drag = io.KeyShift ? DragMode::Select : DragMode::Pan;
    } else if (ImGui::IsMouseClicked(ImGuiMouseButton_Right)) {
      s.drag = DragMode::Select;
    }
    if (s.drag != DragMode::None) {
      s.dragPane = static_cast<int>(index);
      s.dragStart = p.mapping.time(mouse.x) - offset;
    }
  }
  if (s.drag != DragMode::None && s.dragPane == static_cast<int>(index)) {
    const int button =
        ImGui::IsMouseDown(ImGuiMouseButton_Right) || ImGui::IsMouseReleased(ImGuiMouseButton_Right)
            ? ImGuiMouseButton_Right
            : ImGuiMouseButton_Left;
    const bool moved = ImGui::IsMouseDragging(button, kClickSlopPx);
    if (s.drag == DragMode::Pan && moved) {
      NavInput in;
      in.dragDx = io.MouseDelta.x;
      s.view = navigate(s.view, in, s.extent());
      p.scroll -= io.MouseDelta.y;
    }
    if (s.drag == DragMode::Select && moved) {
      const TimeNs now = p.mapping.time(mouse.x) - offset;
      s.range = Interval{std::min(s.dragStart, now), std::max(s.dragStart, now)};
    }
    if (!ImGui::IsMouseDown(button)) {
      const auto d = ImGui::GetMouseDragDelta(button, 0);
      const bool click = std::abs(d.x) < kClickSlopPx && std::abs(d.y) < kClickSlopPx;
      if (click && button == ImGuiMouseButton_Left) {
        const DrawBox* b = boxAt(p.records, mouse.x, mouse.y);
        if (b) {
          const Track* lane = laneOfBox(p.rows(), p.layout, *b);
          const auto& gaps = p.rows().stages[p.layout.rows[b->row].stage].gaps;
          const Track& t = lane ? *lane : gaps;
          s.picked = PickedBox{static_cast<int>(index), boxTooltip(p, *b), t.start[b->first],
                               t.end[b->first + b->count - 1]};
        } else {
          s.picked.reset();
        }
      }
      if (click && s.drag == DragMode::Select) s.range.reset();
      s.drag = DragMode::None;
    }
  }

  // Double-click: on a box zooms to it, on the step strip selects and fits the step.
  if (hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
    if (g.steps.contains(mouse.x, mouse.y)) {
      for (const StepMark& m : p.records.steps) {
        if (mouse.x >= m.x0 && mouse.x < m.x1) {
          if (index == 0) {
            s.selectStep(m.step);
          } else {
            p.step = m.step;
          }
        }
      }
    } else if (inPlot && s.picked) {
      s.view = fitTo(s.view, s.picked->start - offset, s.picked->end - offset, 0.15);
    }
  }

  // A click on a stage's label opens or closes its detail rows.
  if (overLabels && ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
    for (const PlacedRow& pr : p.layout.rows) {
      if (pr.row == -1 && mouse.y >= pr.y && mouse.y < pr.y + pr.h &&
          static_cast<size_t>(pr.stage) < p.expanded.size()) {
        p.expanded[pr.stage] = !p.expanded[pr.stage];
      }
    }
  }
}

void drawSelection(ImDrawList* dl, const ViewerState& s, const Pane& p, const PaneGeometry& g,
                   TimeNs offset) {
  if (!s.range) return;
  const double a = std::clamp(p.mapping.x(s.range->start + offset), g.plot.x0 - 1, g.plot.x1 + 1);
  const double b = std::clamp(p.mapping.x(s.range->end + offset), g.plot.x0 - 1, g.plot.x1 + 1);
  dl->AddRectFilled(v(a, g.ruler.y0), v(b, g.plot.y1), kSelection);
  dl->AddLine(v(a, g.ruler.y0), v(a, g.plot.y1), rgba(0x60, 0xa5, 0xfa));
  dl->AddLine(v(b, g.ruler.y0), v(b, g.plot.y1), rgba(0x60, 0xa5, 0xfa));
  const std::string len = formatDuration(s.range->duration());
  dl->AddText(v(std::max(a, g.plot.x0) + 4, g.ruler.y0 + 2), rgba(0x93, 0xc5, 0xfd), len.c_str());
}

}  // namespace

void drawPane(ViewerState& s, size_t index, const PaneGeometry& g, bool hovered) {
  Pane& p = s.panes[index];
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const TimeNs offset = s.paneOffset(index);
  p.mapping = paneMapping(s, index, g);
  handleMouse(s, index, g, hovered);
  p.mapping = paneMapping(s, index, g);

  // Preprocess: layout and draw records, before any draw call (Tracy's two phases).
  const auto t0 = std::chrono::steady_clock::now();
  p.layout = layoutRows(p.rows(), p.expanded, RowHeights{}, g.plot.y0, p.scroll, g.plot.h());
  const double maxScroll = std::max(0.0, p.layout.contentHeight - g.plot.h());
  if (p.scroll < 0 || p.scroll > maxScroll) {
    p.scroll = std::clamp(p.scroll, 0.0, maxScroll);
    p.layout = layoutRows(p.rows(), p.expanded, RowHeights{}, g.plot.y0, p.scroll, g.plot.h());
  }
  RecordStyle style = s.style;
  style.arrows = s.showArrows;
  style.charW = ImGui::CalcTextSize("M").x;
  buildRecords(p.run->model, p.rows(), p.layout, p.mapping, style,
               p.search.total ? &p.search : nullptr, p.records);
  const PipelineHang* hang = s.showHang ? p.hang() : nullptr;
  if (hang) {
    buildHangRecords(*hang, p.layout, p.mapping, style, p.hangRecords);
  } else {
    p.hangRecords.clear();
  }
  const std::vector<Tick> ticks = rulerTicks(p.mapping, p.origin(), kTickSpacingPx);
  s.preprocessMs +=
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  s.boxes += p.records.boxes.size();

  // Draw.
  if (g.header.h() > 0) {
    dl->AddRectFilled(v(g.header.x0, g.header.y0), v(g.header.x1, g.header.y1),
                      rgba(0x37, 0x41, 0x51));
    const auto& st = p.result().steps;
    std::string title = (index == 0 ? "A  " : "B  ") + p.run->path;
    if (!st.empty()) title += "   aligned at step " + std::to_string(st[p.step].number);
    dl->AddText(v(g.header.x0 + 8, g.header.y0 + 3), kText, title.c_str());
  }
  drawRowBackgrounds(dl, p, g);
  dl->PushClipRect(v(g.plot.x0, g.plot.y0), v(g.plot.x1, g.plot.y1), true);
  for (const Tick& t : ticks) dl->AddLine(v(t.x, g.plot.y0), v(t.x, g.plot.y1), kGrid);
  for (const StepMark& m : p.records.steps) {
    dl->AddLine(ImVec2(m.x0, static_cast<float>(g.plot.y0)),
                ImVec2(m.x0, static_cast<float>(g.plot.y1)), rgba(0x6b, 0x72, 0x80));
  }
  drawBoxes(dl, p);
  drawArrows(dl, p);
  drawHang(dl, p);
  dl->PopClipRect();
  drawSelection(dl, s, p, g, offset);
  drawRuler(dl, p, g, ticks);
  drawStepStrip(dl, p, g);
  drawLabels(dl, p, g);
  drawScrollHint(dl, p, g);
  if (p.records.hiddenArrows > 0) {
    const std::string note =
        std::to_string(p.records.hiddenArrows) + " transfers in view: zoom in to see their arrows";
    const ImVec2 size = ImGui::CalcTextSize(note.c_str());
    dl->AddText(v(g.plot.x1 - size.x - 10, g.plot.y1 - size.y - 4), rgba(0x9c, 0xa3, 0xaf),
                note.c_str());
  }

  // Hover: a line across the pane, the time in the ruler, and what the box is.
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (hovered && (g.plot.contains(mouse.x, mouse.y) || g.ruler.contains(mouse.x, mouse.y) ||
                  g.steps.contains(mouse.x, mouse.y))) {
    dl->AddLine(ImVec2(mouse.x, static_cast<float>(g.ruler.y0)),
                ImVec2(mouse.x, static_cast<float>(g.plot.y1)), rgba(0xff, 0xff, 0xff, 0x50));
    if (s.drag == DragMode::None) {
      std::string tip;
      const std::string* hangTip = hang && g.plot.contains(mouse.x, mouse.y)
                                       ? hangTextAt(*hang, p.hangRecords, mouse.x, mouse.y)
                                       : nullptr;
      if (hangTip) {
        tip = *hangTip;
      } else if (const DrawBox* b = boxAt(p.records, mouse.x, mouse.y)) {
        tip = boxTooltip(p, *b);
      } else if (g.steps.contains(mouse.x, mouse.y)) {
        for (const StepMark& m : p.records.steps) {
          if (mouse.x < m.x0 || mouse.x >= m.x1) continue;
          const auto& st = p.result().steps[m.step];
          tip = "step " + std::to_string(st.number) + ": " + formatDuration(st.duration()) +
                "\ndouble-click to select it and fit it in view";
        }
      } else {
        tip = formatDuration(p.mapping.time(mouse.x) - p.origin()) + " from the step start";
      }
      if (!tip.empty()) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40);
        ImGui::TextUnformatted(tip.c_str());
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
      }
    }
  }
}

}  // namespace bubblescope::gui
