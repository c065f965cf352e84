#include "analyzer/replicas/listed_replicas.h"

#include <algorithm>
#include <map>
#include <utility>

namespace bubblescope::analysis {

std::vector<bool> replicasListedWhole(const JobResult& job, const std::vector<int>& dpRanks,
                                      size_t most) {
  std::vector<bool> whole(dpRanks.size(), dpRanks.size() <= most);
  if (dpRanks.size() <= most) return whole;
  std::map<int, size_t> replicaOf;
  for (size_t i = 0; i < dpRanks.size(); ++i) replicaOf.emplace(dpRanks[i], i);
  size_t listed = 0;
  auto list = [&](int dp) {
    const auto it = replicaOf.find(dp);
    if (listed >= most || it == replicaOf.end() || whole[it->second]) return;
    whole[it->second] = true;
    ++listed;
  };
  list(job.culpritDp);
  for (const DpSyncBlame& b : job.dpSync) list(b.dp);
  std::vector<const PartSlowdown*> bySlowdown;
  for (const PartSlowdown& d : job.dpRanks) bySlowdown.push_back(&d);
  std::stable_sort(bySlowdown.begin(), bySlowdown.end(),
                   [](const PartSlowdown* a, const PartSlowdown* b) {
                     return a->slowdown != b->slowdown ? a->slowdown > b->slowdown : a->id < b->id;
                   });
  for (const PartSlowdown* d : bySlowdown) list(d->id);
  // A job whose rounds gave no S_d (no step analysed): the first replicas.
  for (size_t i = 0; i < dpRanks.size(); ++i) list(dpRanks[i]);
  return whole;
}

void summarisePipeline(PipelineResult& pl) {
  PipelineResult kept;
  kept.dpRank = pl.dpRank;
  kept.summarised = true;
  kept.stages = std::move(pl.stages);
  kept.steps = std::move(pl.steps);
  kept.total = pl.total;
  kept.schedule = std::move(pl.schedule);
  kept.stepTimeMeasured = pl.stepTimeMeasured;
  kept.stepTimeIdeal = pl.stepTimeIdeal;
  kept.stepTimeStage = pl.stepTimeStage;
  kept.stepTimeOps = pl.stepTimeOps;
  kept.slowdown = pl.slowdown;
  kept.transferMedian = pl.transferMedian;
  kept.tailMedian = pl.tailMedian;
  kept.model = std::move(pl.model);
  kept.culprit = std::move(pl.culprit);
  kept.culpritStage = pl.culpritStage;
  kept.culpritGain = pl.culpritGain;
  pl = std::move(kept);
}

}  // namespace bubblescope::analysis
