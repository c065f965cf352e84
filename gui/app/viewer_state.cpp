#include "gui/app/viewer_state.h"

#include <algorithm>

namespace bubblescope::gui {

TimeNs Pane::origin() const {
  const auto& steps = result().steps;
  if (steps.empty()) return rows().extent.start;
  return steps[std::clamp<size_t>(static_cast<size_t>(step), 0, steps.size() - 1)].start;
}

const PipelineHang* Pane::hang() const {
  const HangOverlay& h = run->hangOverlay;
  if (!h.found || pipeline >= static_cast<int>(h.pipelines.size())) return nullptr;
  return &h.pipelines[pipeline];
}

void Pane::selectPipeline(int index) {
  pipeline = std::clamp(index, 0, static_cast<int>(run->model.pipelines.size()) - 1);
  expanded.assign(rows().stages.size(), false);
  step = std::clamp(step, 0, std::max(0, static_cast<int>(result().steps.size()) - 1));
  scroll = 0;
}

TimeNs ViewerState::paneOffset(size_t i) const {
  if (i == 0 || i >= panes.size()) return 0;
  return panes[i].origin() - panes[0].origin();
}

Interval ViewerState::extent() const {
  return panes[0].rows().extent;
}

void ViewerState::fitStep() {
  const auto& steps = panes[0].result().steps;
  if (steps.empty()) {
    view = fitTo(view, extent().start, extent().end, 0.02);
    return;
  }
  const auto& s = steps[panes[0].step];
  view = fitTo(view, s.start, s.end, 0.02);
}

void ViewerState::selectStep(int step) {
  Pane& p = panes[0];
  const int n = static_cast<int>(p.result().steps.size());
  if (n == 0) return;
  p.step = std::clamp(step, 0, n - 1);
  if (panes.size() > 1) {
    // The compared run follows by step number when it has it, else by position.
    Pane& q = panes[1];
    const int64_t number = p.result().steps[p.step].number;
    const auto& qs = q.result().steps;
    auto it = std::find_if(qs.begin(), qs.end(), [&](const auto& s) { return s.number == number; });
    if (it != qs.end()) {
      q.step = static_cast<int>(it - qs.begin());
    } else if (!qs.empty()) {
      q.step = std::min(p.step, static_cast<int>(qs.size()) - 1);
    }
  }
  fitStep();
}

void ViewerState::setCompare(std::unique_ptr<LoadedRun> run, std::optional<int64_t> stepNumber) {
  compare = std::move(run);
  panes.resize(1);
  if (!compare) return;
  Pane q;
  q.run = compare.get();
  q.selectPipeline(
      std::min(panes[0].pipeline, static_cast<int>(compare->model.pipelines.size()) - 1));
  panes.push_back(std::move(q));
  const int keep = panes[0].step;
  const auto view0 = view;
  selectStep(keep);  // aligns the compared run's step by number
  view = view0;
  if (stepNumber) {
    const auto& qs = panes[1].result().steps;
    auto it =
        std::find_if(qs.begin(), qs.end(), [&](const auto& s) { return s.number == *stepNumber; });
    if (it != qs.end()) panes[1].step = static_cast<int>(it - qs.begin());
  }
  rerunSearch();
}

void ViewerState::reveal(size_t pane, TimeNs start, TimeNs end, int stage, int row) {
  const TimeNs offset = paneOffset(pane);
  start -= offset;
  end -= offset;
  if (end - start < view.span() * 9 / 10) {
    view = shifted(view, (start + end) / 2 - (view.start + view.end) / 2);
  } else {
    view = fitTo(view, start, end, 0.1);
  }
  if (pane >= panes.size() || stage < 0) return;
  Pane& p = panes[pane];
  if (row >= 0 && static_cast<size_t>(stage) < p.expanded.size()) p.expanded[stage] = true;
  // Where the row is with nothing scrolled, then scroll it to a third of the way down.
  const RowLayout all = layoutRows(p.rows(), p.expanded, RowHeights{}, 0, 0, 1e12);
  for (const PlacedRow& r : all.rows) {
    if (r.stage == stage && r.row == row) {
      p.scroll = std::max(0.0, r.y - 60);
      break;
    }
  }
}

void ViewerState::rerunSearch() {
  for (Pane& p : panes) p.search = search(p.run->model, p.rows(), searchText);
}

}  // namespace bubblescope::gui
