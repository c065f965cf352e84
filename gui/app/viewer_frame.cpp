#include "gui/app/viewer_frame.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "gui/app/keys.h"
#include "gui/app/side_panel.h"
#include "gui/app/timeline_pane.h"
#include "gui/app/toolbar.h"
#include "gui/timeline/navigation.h"

namespace bubblescope::gui {
namespace {

int stepIndex(const analysis::PipelineResult& pl, int64_t number, const std::string& run) {
  for (size_t k = 0; k < pl.steps.size(); ++k) {
    if (pl.steps[k].number == number) return static_cast<int>(k);
  }
  std::string have = pl.steps.empty() ? "none"
                                      : std::to_string(pl.steps.front().number) + " to " +
                                            std::to_string(pl.steps.back().number);
  throw std::invalid_argument(run + ": has no step " + std::to_string(number) +
                              " (its analysed steps: " + have + ")");
}

void pollLoading(ViewerState& s) {
  if (!s.loading.running()) return;
  try {
    if (auto run = s.loading.poll()) {
      s.setCompare(std::move(run), std::nullopt);
      s.message.clear();
    }
  } catch (const std::exception& e) {
    s.message = std::string("could not compare: ") + e.what();
  }
}

void handleKeys(ViewerState& s, const FrameGeometry& g, double dt) {
  if (!keys::forTimeline()) return;
  const ImGuiIO& io = ImGui::GetIO();
  if (io.KeyCtrl && keys::pressed(GLFW_KEY_F, false)) {
    s.focusSearch = true;
    return;
  }
  NavInput in;
  in.zoomIn = keys::down(GLFW_KEY_W);
  in.zoomOut = keys::down(GLFW_KEY_S);
  in.panLeft = keys::down(GLFW_KEY_A);
  in.panRight = keys::down(GLFW_KEY_D);
  in.dt = dt;
  // Keys zoom at the cursor when it is over a pane's plot, else at the centre.
  for (size_t i = 0; i < g.panes.size(); ++i) {
    const Rect& plot = g.panes[i].plot;
    if (plot.contains(io.MousePos.x, io.MousePos.y)) {
      in.overPlot = true;
      in.mouseX = io.MousePos.x;
    }
  }
  if (in.zoomIn || in.zoomOut || in.panLeft || in.panRight) {
    TimeMapping m = s.view;
    m.x0 = g.panes[0].plot.x0;
    m.width = std::max(1.0, g.panes[0].plot.w());
    s.view = navigate(m, in, s.extent());
  }
  if (keys::pressed(GLFW_KEY_ESCAPE, false)) {
    s.range.reset();
    s.picked.reset();
  }
  if (keys::pressed(GLFW_KEY_F, false)) {
    if (s.picked) {
      const TimeNs off = s.paneOffset(s.picked->pane);
      s.view = fitTo(s.view, s.picked->start - off, s.picked->end - off, 0.15);
    } else if (s.range) {
      s.view = fitTo(s.view, s.range->start, s.range->end, 0.02);
    } else {
      s.fitStep();
    }
  }
  if (keys::pressed(GLFW_KEY_COMMA)) s.selectStep(s.panes[0].step - 1);
  if (keys::pressed(GLFW_KEY_PERIOD)) s.selectStep(s.panes[0].step + 1);
}

struct HungRun {
  std::string tag;  // "A  ", "B  " in compare mode
  const HangOverlay* hang = nullptr;
};

std::vector<HungRun> hungRuns(const ViewerState& s) {
  std::vector<HungRun> out;
  for (size_t i = 0; i < s.panes.size(); ++i) {
    if (!s.panes[i].hang()) continue;
    out.push_back({s.panes.size() > 1 ? (i ? "B  " : "A  ") : "", &s.panes[i].run->hangOverlay});
  }
  return out;
}

// The diagnosis, the first line of `bubblescope hang`, over the timeline, a band per hung run;
// hover for the rest.
void drawHangBanner(const std::vector<HungRun>& runs, const Rect& r) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (size_t i = 0; i < runs.size(); ++i) {
    const HangOverlay& h = *runs[i].hang;
    const Rect band{r.x0, r.y0 + kHangBannerH * static_cast<double>(i), r.x1,
                    r.y0 + kHangBannerH * static_cast<double>(i + 1)};
    const ImVec2 a(static_cast<float>(band.x0), static_cast<float>(band.y0));
    const ImVec2 b(static_cast<float>(band.x1), static_cast<float>(band.y1));
    dl->AddRectFilled(a, b, kHangBanner);
    dl->AddRectFilled(a, ImVec2(a.x + 4, b.y), kHangRed);
    dl->PushClipRect(a, b, true);
    const std::string text = runs[i].tag + h.diagnosis;
    dl->AddText(ImGui::GetFont(), ImGui::GetFontSize(), ImVec2(a.x + 12, a.y + 4), kText,
                text.c_str(), nullptr, static_cast<float>(band.w() - 20));
    dl->PopClipRect();
    if (!band.contains(mouse.x, mouse.y) || !ImGui::IsWindowHovered()) continue;
    std::string tip = text;
    for (const std::string& d : h.details) tip += "\nalso: " + d;
    tip +=
        "\n\nRed arrows: who waits for whom (the wait-for graph), from the wait's start. "
        "Hatched boxes: what each rank still had open, to its last sign of life (white bar).";
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 45);
    ImGui::TextUnformatted(tip.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

}  // namespace

int defaultStep(const analysis::PipelineResult& pl) {
  if (pl.steps.empty()) return 0;
  std::vector<TimeNs> avoidable(pl.steps.size(), 0);
  for (const auto& g : pl.gaps) {
    if (g.step < 0 || g.step >= static_cast<int>(avoidable.size())) continue;
    avoidable[g.step] += analysis::avoidableIdle(g);
  }
  // The first of three or more steps pays one-time costs (connections, first allocations): a
  // user asking where the bubbles are means the steady steps.
  const auto from = avoidable.begin() + (avoidable.size() >= 3 ? 1 : 0);
  return static_cast<int>(std::max_element(from, avoidable.end()) - avoidable.begin());
}

void initState(ViewerState& s, std::unique_ptr<LoadedRun> primary,
               std::unique_ptr<LoadedRun> compare, const ViewerOptions& o) {
  s.primary = std::move(primary);
  s.load = o.load;
  s.analyzeOptions = o.analyze;
  s.panes.clear();
  Pane p;
  p.run = s.primary.get();
  const int replicas = static_cast<int>(s.primary->model.pipelines.size());
  if (o.dp < 0 || o.dp >= replicas) {
    throw std::invalid_argument("--dp " + std::to_string(o.dp) + ": " + o.run + " has " +
                                std::to_string(replicas) + " DP replica(s), 0 to " +
                                std::to_string(replicas - 1));
  }
  p.selectPipeline(o.dp);
  p.step = o.step ? stepIndex(p.result(), *o.step, o.run) : defaultStep(p.result());
  s.panes.push_back(std::move(p));
  s.selectStep(s.panes[0].step);
  if (compare) {
    if (o.compareStep) stepIndex(compare->result.pipelines.front(), *o.compareStep, o.compare);
    s.setCompare(std::move(compare), o.compareStep);
  }
  if (o.rangeMs) {
    const TimeNs origin = s.panes[0].origin();
    const auto a = origin + static_cast<TimeNs>(std::llround(o.rangeMs->first * 1e6));
    const auto b = origin + static_cast<TimeNs>(std::llround(o.rangeMs->second * 1e6));
    s.view = fitTo(s.view, a, b, 0);
  }
  // A hung run opens on the hang: the last step, from its start to past its waits' starts.
  if (const PipelineHang* h = s.panes[0].hang(); h && !o.step && !o.rangeMs) {
    if (h->focus.end > h->focus.start) {
      s.selectStep(static_cast<int>(s.panes[0].result().steps.size()) - 1);
      s.view = fitTo(s.view, h->focus.start, h->focus.end, 0.02);
    }
  }
  // Rows without ops (a hung run with no pipeline recognised) show their raw trace.
  for (Pane& q : s.panes) {
    q.expanded.assign(q.rows().stages.size(), o.expandAll || q.result().ops.empty());
  }
}

void drawFrame(ViewerState& s, double width, double height, double dt) {
  pollLoading(s);
  s.preprocessMs = 0;
  s.boxes = 0;
  const std::vector<HungRun> hung = hungRuns(s);
  const FrameGeometry g =
      frameGeometry(width, height, static_cast<int>(s.panes.size()), s.showPanel,
                    kHangBannerH * static_cast<double>(hung.size()));

  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(
      ImVec2(static_cast<float>(g.panel.w() > 0 ? g.panel.x0 : width), static_cast<float>(height)));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
  // No window background: the clear color is the timeline's background already, and on a
  // software rasteriser every full-window layer costs milliseconds a frame.
  ImGui::Begin("##timeline", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus |
                   ImGuiWindowFlags_NoScrollWithMouse | ImGuiWindowFlags_NoBackground);
  ImGui::PopStyleVar();
  drawToolbar(s, g.toolbar);
  if (!hung.empty()) drawHangBanner(hung, g.banner);
  // The panes are drawn with the draw list; their mouse input is read only when no widget or
  // popup has the mouse.
  const bool hovered =
      ImGui::IsWindowHovered() && !ImGui::IsAnyItemHovered() && !ImGui::IsAnyItemActive();
  for (size_t i = 0; i < s.panes.size(); ++i)
    drawPane(s, i, g.panes[i], hovered || s.drag != DragMode::None);
  handleKeys(s, g, dt);
  ImGui::End();
  if (s.showPanel) drawSidePanel(s, g.panel);
}

}  // namespace bubblescope::gui
