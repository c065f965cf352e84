// The Run section: the run's facts and S, the compared run's beside them, and the box that
// loads a run to compare with; for a running job (view --attach), that it is live and how.
#include <imgui.h>

#include <string>

#include "analyzer/report/format.h"
#include "gui/app/live_session.h"
#include "gui/app/live_view.h"
#include "gui/app/panel/panel_sections.h"
#include "gui/app/panel/panel_widgets.h"

namespace bubblescope::gui {
namespace {

using analysis::formatRatio;

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

// The job, its newest step, the steps shown of what its agents keep, and the feed's last word:
// how the job or the watch ended, a silence (it may hang), or a rank slow to answer.
void liveSummary(const ViewerState& s) {
  const LiveSession& live = *s.live.session;
  const LiveStatus st = live.status();
  const auto& steps = s.panes[0].result().steps;
  ImGui::TextColored(st.end.empty() ? ImVec4(0.4f, 0.9f, 0.4f, 1) : ImVec4(0.9f, 0.6f, 0.3f, 1),
                     "%s", st.end.empty() ? "LIVE" : "ENDED");
  ImGui::SameLine();
  ImGui::TextWrapped("run %s, %zu process(es)", live.feed().runId.c_str(), live.feed().processes);
  if (!steps.empty()) {
    ImGui::Text("newest step %lld; steps %lld-%lld shown", static_cast<long long>(newestShown(s)),
                static_cast<long long>(steps.front().number),
                static_cast<long long>(steps.back().number));
  }
  ImGui::TextDisabled("each process keeps %s; %lld step(s) shown since attaching",
                      live.keep().c_str(), static_cast<long long>(s.live.stepsShown));
  if (!s.live.follow.following()) {
    ImGui::TextWrapped("%lld new step(s) since you moved (toolbar: show the newest)",
                       static_cast<long long>(s.live.follow.waiting()));
  }
  for (const std::string* line : {&st.end, &st.silence, &st.refused, &st.note}) {
    if (!line->empty()) ImGui::TextWrapped("%s", line->c_str());
  }
  ImGui::Separator();
}

}  // namespace

void runSection(ViewerState& s) {
  if (!ImGui::CollapsingHeader("Run", ImGuiTreeNodeFlags_DefaultOpen)) return;
  if (s.live.session) liveSummary(s);
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

}  // namespace bubblescope::gui
