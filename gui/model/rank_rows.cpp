#include "gui/model/rank_rows.h"

#include <algorithm>
#include <numeric>

#include "analyzer/result/errors.h"

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
  pl.whatIfWithheld = "the run hung before the analysis could read a step of it";
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

analysis::AnalysisResult analyzeForView(const traces::Run& run,
                                        const analysis::hang::HangReport& report,
                                        const analysis::AnalyzeOptions& options) {
  try {
    analysis::AnalysisResult r = analysis::analyzeRun(run, options);
    if (report.found() && report.verdict != analysis::hang::Verdict::Stopped) {
      for (analysis::PipelineResult& pl : r.pipelines) {
        pl.whatIf.clear();
        pl.whatIfWithheld = std::string("the run hung (") +
                            analysis::hang::verdictName(report.verdict) +
                            "): what it waits for is in the Hang section, and no schedule "
                            "shortens a wait that never ends";
      }
    }
    return r;
  } catch (const analysis::AnalysisInputError& e) {
    // A hang often stops a job before any step completes: what the ranks did is still worth
    // seeing, with where they stopped.
    if (!report.found()) throw;
    return oneRowPerRank(run, report, e.what());
  }
}

}  // namespace bubblescope::gui
