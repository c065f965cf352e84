#include "analyzer/replicas/dp_sync.h"

#include <algorithm>
#include <map>

namespace bubblescope::analysis {

void blameDpSync(const std::vector<DpWaits>& waits, JobResult& job) {
  if (waits.size() < 2) return;
  std::map<std::pair<int, int>, DpSyncBlame> blame;  // (dp, stage)
  TimeNs total = 0;
  int steps = 0;
  // Every replica has the same steps and, per stage, the same last replica.
  const DpWaits& first = waits.front();
  for (int64_t number : first.steps) {
    ++steps;
    for (size_t s = 0; s < static_cast<size_t>(first.p); ++s) {
      const int dp = first.at(number, static_cast<int>(s))->lastDp;
      if (dp < 0) continue;
      TimeNs wait = 0;
      for (const DpWaits& w : waits) wait += w.at(number, static_cast<int>(s))->wait;
      DpSyncBlame& b = blame[{dp, static_cast<int>(s)}];
      b.dp = dp;
      b.stage = static_cast<int>(s);
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
