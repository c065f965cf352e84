#include "analyzer/replicas/dp_sync.h"

#include <algorithm>
#include <map>

namespace bubblescope::analysis {

void blameDpSync(const std::vector<ReplicaSteps>& replicas, JobResult& job) {
  if (replicas.size() < 2) return;
  std::map<int64_t, std::vector<const StepView*>> byNumber;
  for (const ReplicaSteps& r : replicas) {
    for (const StepView& v : r.views) byNumber[v.number].push_back(&v);
  }
  std::map<std::pair<int, int>, DpSyncBlame> blame;  // (dp, stage)
  TimeNs total = 0;
  int steps = 0;
  for (const auto& [number, views] : byNumber) {
    if (views.size() != replicas.size()) continue;
    ++steps;
    const int p = replicas.front().pipeline->p;
    for (int s = 0; s < p; ++s) {
      // A replica arrives at stage s's collective when its last pipeline op there ends.
      std::vector<TimeNs> arrival(replicas.size(), INT64_MIN);
      for (size_t d = 0; d < replicas.size(); ++d) {
        const PipelineTrace& pl = *replicas[d].pipeline;
        for (const StageStep& ss : views[d]->stages) {
          if (ss.stage != s) continue;
          for (int i : ss.ops) arrival[d] = std::max(arrival[d], pl.stages[s].ops.ops[i].end);
        }
      }
      const size_t last =
          static_cast<size_t>(std::max_element(arrival.begin(), arrival.end()) - arrival.begin());
      if (arrival[last] == INT64_MIN) continue;
      TimeNs wait = 0;
      for (size_t d = 0; d < replicas.size(); ++d) {
        if (arrival[d] != INT64_MIN) wait += arrival[last] - arrival[d];
      }
      const int dp = replicas[last].pipeline->dpRank;
      DpSyncBlame& b = blame[{dp, s}];
      b.dp = dp;
      b.stage = s;
      b.waitCaused += wait;
      ++b.stepsLast;
      total += wait;
    }
  }
  if (steps == 0) return;
  job.dpWaitPerStep = total / steps;
  for (auto& [key, b] : blame) job.dpSync.push_back(b);
  std::stable_sort(
      job.dpSync.begin(), job.dpSync.end(),
      [](const DpSyncBlame& a, const DpSyncBlame& b) { return a.waitCaused > b.waitCaused; });
}

}  // namespace bubblescope::analysis
