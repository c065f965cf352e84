#include "gui/model/rank_rows.h"

#include <algorithm>
#include <numeric>

namespace bubblescope::gui {

analysis::AnalysisResult oneRowPerRank(const traces::Run& run,
                                       const analysis::hang::HangReport& report,
                                       const std::string& why) {
  analysis::AnalysisResult r;
  r.runDir = run.dir.string();
  r.ranks = static_cast<int>(run.ranks.size());
  r.pp = r.ranks;
  r.dp = 1;
  r.topologySource = "rank order";
  r.clock.enabled = false;
  r.clock.offsets.assign(run.ranks.size(), 0);
  r.warnings.push_back(why + "; each rank is shown on a row of its own, with where it stopped");
  std::vector<int> order(std::min(run.ranks.size(), report.ranks.size()));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const auto& x = report.ranks[a];
    const auto& y = report.ranks[b];
    return x.stage != y.stage ? x.stage < y.stage : x.rank < y.rank;
  });
  analysis::PipelineResult pl;
  pl.schedule.name = "none recognised";
  for (int i : order) {
    analysis::StageResult st;
    st.stage = report.ranks[i].stage;
    st.rank = i;
    st.ranks = {i};
    pl.stages.push_back(std::move(st));
  }
  r.pipelines.push_back(std::move(pl));
  return r;
}

}  // namespace bubblescope::gui
