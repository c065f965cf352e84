#include "gui/app/live_view.h"

#include "gui/app/live_session.h"

namespace bubblescope::gui {
namespace {

// Replaces the shown run with a newer window of the same job, on its newest step. The replica,
// the stages opened and the search stay; the range statistics are of the old run.
void install(ViewerState& s, std::unique_ptr<LoadedRun> run) {
  Pane& p = s.panes[0];
  const std::vector<bool> expanded = p.expanded;
  const double scroll = p.scroll;
  s.primary = std::move(run);
  p.run = s.primary.get();
  p.selectPipeline(p.pipeline);
  if (expanded.size() == p.expanded.size()) {
    p.expanded = expanded;
    p.scroll = scroll;
  }
  s.rangeStats.reset();
  s.picked.reset();
  s.rerunSearch();
  s.selectStep(static_cast<int>(p.result().steps.size()) - 1);
  s.live.follow.set(shownView(s));
}

}  // namespace

ShownView shownView(const ViewerState& s) {
  ShownView v;
  v.start = s.view.start;
  v.end = s.view.end;
  const Pane& p = s.panes[0];
  const auto& steps = p.result().steps;
  if (p.step >= 0 && static_cast<size_t>(p.step) < steps.size()) v.step = steps[p.step].number;
  return v;
}

int64_t newestShown(const ViewerState& s) {
  const auto& steps = s.panes[0].result().steps;
  return steps.empty() ? -1 : steps.back().number;
}

std::vector<std::string> pollLive(ViewerState& s) {
  LiveState& l = s.live;
  if (!l.session || s.panes.empty()) return {};
  l.follow.observe(shownView(s));
  std::vector<std::string> said = l.session->lines();
  int64_t steps = 0;
  if (auto run = l.session->take(&steps)) {
    if (l.follow.arrived(steps)) {
      install(s, std::move(run));
      l.stepsShown += steps;
    } else {
      l.pending = std::move(run);  // only the newest is held: memory stays bounded
    }
  }
  return said;
}

void jumpToNewest(ViewerState& s) {
  LiveState& l = s.live;
  l.stepsShown += l.follow.waiting();
  l.follow.jumpBack();
  if (l.pending) {
    install(s, std::move(l.pending));
  } else {
    s.selectStep(static_cast<int>(s.panes[0].result().steps.size()) - 1);
    l.follow.set(shownView(s));
  }
}

}  // namespace bubblescope::gui
