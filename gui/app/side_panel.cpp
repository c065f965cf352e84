#include "gui/app/side_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "analyzer/report/format.h"
#include "gui/app/panel/panel_widgets.h"
#include "gui/model/item_text.h"
#include "gui/timeline/ruler.h"

namespace bubblescope::gui {
namespace {

using analysis::formatPercent;
using analysis::formatRatio;
using analysis::IdleClass;
using analysis::kIdleClasses;
using analysis::Split;

const Split& stageSplit(const Pane& p, size_t stage, bool wholeRun) {
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

void runSummary(const Pane& p, const char* tag) {
  const auto& r = p.run->result;
  const auto& pl = p.result();
  ImGui::TextWrapped("%s%s", tag, p.run->path.c_str());
  ImGui::Text("%d ranks: pp %d x dp %d x tp %d, %zu steps", r.ranks, r.pp, r.dp, r.tp,
              pl.steps.size());
  if (pl.steps.empty() && pl.ops.empty()) {
    ImGui::TextWrapped("no pipeline recognised: a row per rank, with its raw trace");
    return;
  }
  ImGui::Text("schedule %s (p=%d, m=%d%s)%s", pl.schedule.name.c_str(), pl.schedule.p,
              pl.schedule.m,
              pl.schedule.v > 1 ? (", v=" + std::to_string(pl.schedule.v)).c_str() : "",
              pl.schedule.exact ? "" : ", inexact match");
  ImGui::Text("step %s measured, %s ideal", ms(pl.stepTimeMeasured).c_str(),
              ms(pl.stepTimeIdeal).c_str());
  ImGui::Text("S = %s   (measured / ideal step time)", formatRatio(pl.slowdown).c_str());
  if (r.job.present) {  // several replicas or TP ranks: the job's straggler
    ImGui::Text("job: S = %s over %d replicas", formatRatio(r.job.slowdown).c_str(), r.dp);
    ImGui::TextWrapped("culprit: %s", r.job.culprit.c_str());
  }
}

void runSection(ViewerState& s) {
  if (!ImGui::CollapsingHeader("Run", ImGuiTreeNodeFlags_DefaultOpen)) return;
  runSummary(s.panes[0], s.panes.size() > 1 ? "A  " : "");
  if (s.panes.size() > 1) {
    ImGui::Separator();
    runSummary(s.panes[1], "B  ");
    const double a = static_cast<double>(s.panes[0].result().stepTimeMeasured);
    const double b = static_cast<double>(s.panes[1].result().stepTimeMeasured);
    if (a > 0) ImGui::Text("B / A step time: %s", formatRatio(b / a).c_str());
    if (ImGui::Button("Close the comparison")) s.setCompare(nullptr, std::nullopt);
  }
  ImGui::Spacing();
  ImGui::SetNextItemWidth(-70);
  const bool enter =
      ImGui::InputTextWithHint("##compare", "run to compare with", s.comparePath,
                               sizeof s.comparePath, ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  const bool busy = s.loading.running();
  if ((ImGui::Button(busy ? "..." : "Load") || enter) && !busy && s.comparePath[0] && s.load) {
    s.loading.start(s.comparePath, s.load, s.analyzeOptions);
  }
  if (busy) ImGui::TextDisabled("loading %s ...", s.loading.path().c_str());
}

// `bubblescope hang`'s findings: the diagnosis, then per mark what waits for what, each a link
// to its place on the timeline.
void hangSection(ViewerState& s) {
  bool any = false;
  for (const Pane& p : s.panes) any = any || p.hang();
  if (!any || !ImGui::CollapsingHeader("Hang", ImGuiTreeNodeFlags_DefaultOpen)) return;
  for (size_t k = 0; k < s.panes.size(); ++k) {
    const Pane& p = s.panes[k];
    const PipelineHang* h = p.hang();
    if (!h) continue;
    const HangOverlay& o = p.run->hangOverlay;
    const char* tag = s.panes.size() > 1 ? (k ? "B  " : "A  ") : "";
    ImGui::PushStyleColor(ImGuiCol_Text, toVec(rgba(0xfc, 0xa5, 0xa5)));
    ImGui::TextWrapped("%s%s", tag, o.diagnosis.c_str());
    ImGui::PopStyleColor();
    for (const std::string& d : o.details) ImGui::TextWrapped("also: %s", d.c_str());
    for (size_t i = 0; i < h->marks.size(); ++i) {
      const HangMark& m = h->marks[i];
      const std::string line = p.rows().stages[m.stage].label + "  " + m.tag;
      const std::string id = "##hang" + std::to_string(k) + "_" + std::to_string(i);
      if (ImGui::Selectable((line + id).c_str())) {
        s.reveal(k, m.start, std::min(m.end, m.start + s.view.span() / 2), m.stage, -1);
        s.picked = PickedBox{static_cast<int>(k), m.text, m.start, m.end};
      }
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", m.text.c_str());
    }
    ImGui::TextDisabled("the table: bubblescope hang %s", p.run->path.c_str());
  }
}

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
      const Split& sp = stageSplit(p, st, s.wholeRun);
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

void legendSection() {
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

void whatIfTable(const Pane& p) {
  if (!ImGui::BeginTable(("whatif" + p.run->path).c_str(), 4,
                         ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH |
                             ImGuiTableFlags_SizingStretchProp)) {
    return;
  }
  ImGui::TableSetupColumn("scenario", ImGuiTableColumnFlags_WidthStretch, 2.2f);
  ImGui::TableSetupColumn("step", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("bubble", ImGuiTableColumnFlags_WidthStretch, 0.9f);
  ImGui::TableSetupColumn("speedup", ImGuiTableColumnFlags_WidthStretch, 0.9f);
  ImGui::TableHeadersRow();
  for (const auto& w : p.result().whatIf) {
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
      continue;
    }
    ImGui::TextUnformatted(ms(w.stepTime).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(formatPercent(w.bubbleRate).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(formatRatio(w.speedup).c_str());
  }
  ImGui::EndTable();
}

void whatIfSection(const ViewerState& s) {
  if (!ImGui::CollapsingHeader("What if", ImGuiTreeNodeFlags_DefaultOpen)) return;
  for (size_t k = 0; k < s.panes.size(); ++k) {
    if (s.panes.size() > 1) ImGui::TextDisabled("%s", k ? "B" : "A");
    whatIfTable(s.panes[k]);
  }
}

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

void gapsSection(ViewerState& s) {
  const Pane& p = s.panes[0];
  const auto& pl = p.result();
  if (pl.topGaps.empty()) return;
  if (!ImGui::CollapsingHeader("Largest avoidable gaps", ImGuiTreeNodeFlags_DefaultOpen)) return;
  for (int gi : pl.topGaps) {
    const auto& g = pl.gaps[gi];
    swatch(idleColor(g.dominant));
    const std::string head = "stage " + std::to_string(g.stage) + ", step " +
                             std::to_string(pl.steps[g.step].number) + ": " + ms(g.idle) + " " +
                             analysis::idleClassName(g.dominant);
    if (ImGui::Selectable((head + "##gap" + std::to_string(gi)).c_str())) {
      s.reveal(0, g.start, g.end, g.stage, -1);
      s.picked =
          PickedBox{0, gapTooltip(p.rows(), static_cast<uint32_t>(gi), p.origin()), g.start, g.end};
    }
    if (!g.blame.text.empty()) {
      ImGui::Indent(22);
      ImGui::PushTextWrapPos(0);
      ImGui::TextDisabled("%s", g.blame.text.c_str());
      ImGui::PopTextWrapPos();
      ImGui::Unindent(22);
    }
  }
}

void warningsSection(const ViewerState& s) {
  for (size_t k = 0; k < s.panes.size(); ++k) {
    const auto& w = s.panes[k].run->result.warnings;
    if (w.empty()) continue;
    const std::string title =
        std::string("Warnings") + (s.panes.size() > 1 ? (k ? " (B)" : " (A)") : "");
    if (!ImGui::CollapsingHeader(title.c_str())) continue;
    for (const auto& line : w) ImGui::BulletText("%s", line.c_str());
  }
}

}  // namespace

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
  hangSection(s);
  runSection(s);
  breakdownSection(s);
  whatIfSection(s);
  searchSection(s);
  rangeSection(s);
  gapsSection(s);
  legendSection();
  warningsSection(s);
  ImGui::EndChild();
  ImGui::End();
}

}  // namespace bubblescope::gui
