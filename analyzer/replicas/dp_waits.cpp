#include "analyzer/replicas/dp_waits.h"

#include <algorithm>

namespace bubblescope::analysis {

ReplicaArrivals arrivalsOf(const PipelineTrace& pl) {
  ReplicaArrivals out;
  out.dpRank = pl.dpRank;
  out.p = pl.p;
  for (int64_t number : pl.stepNumbers) out.byStep[number].assign(pl.p, INT64_MIN);
  // One pass over the ops.
  for (const StageTrace& st : pl.stages) {
    // The stage's step markers -> the common step they are (-1: not common).
    std::vector<int64_t> numberOf(st.ops.steps.size(), -1);
    std::vector<bool> common(st.ops.steps.size(), false);
    for (size_t k = 0; k < pl.stepNumbers.size(); ++k) {
      const int marker = pl.stepIndex[st.stage][k];
      if (marker < 0 || static_cast<size_t>(marker) >= numberOf.size()) continue;
      numberOf[marker] = pl.stepNumbers[k];
      common[marker] = true;
    }
    for (const RecognizedOp& o : st.ops.ops) {
      if (o.step < 0 || static_cast<size_t>(o.step) >= common.size() || !common[o.step]) continue;
      auto& row = out.byStep[numberOf[o.step]];
      row[st.stage] = std::max(row[st.stage], o.end);
    }
  }
  return out;
}

std::vector<DpWaits> dpWaitsFrom(const std::vector<ReplicaArrivals>& replicas) {
  std::vector<DpWaits> out(replicas.size());
  if (replicas.size() < 2) return out;
  const int p = replicas.front().p;
  for (DpWaits& w : out) w.p = p;
  std::vector<DpWait*> rowOf(replicas.size());
  for (const auto& [number, first] : replicas.front().byStep) {
    std::vector<const std::vector<TimeNs>*> rows;
    for (const ReplicaArrivals& a : replicas) {
      auto it = a.byStep.find(number);
      if (it == a.byStep.end() || static_cast<int>(it->second.size()) != p) break;
      rows.push_back(&it->second);
    }
    if (rows.size() != replicas.size()) continue;                           // not on every replica
    for (size_t d = 0; d < out.size(); ++d) rowOf[d] = out[d].add(number);  // in step order
    for (int s = 0; s < p; ++s) {
      size_t last = 0;
      for (size_t d = 1; d < rows.size(); ++d) {
        if ((*rows[d])[s] > (*rows[last])[s]) last = d;
      }
      const TimeNs lastArrival = (*rows[last])[s];
      if (lastArrival == INT64_MIN) continue;
      for (size_t d = 0; d < rows.size(); ++d) {
        const TimeNs arrival = (*rows[d])[s];
        rowOf[d][s] = {arrival == INT64_MIN ? 0 : lastArrival - arrival, replicas[last].dpRank};
      }
    }
  }
  return out;
}

std::vector<DpWaits> dpWaitsOf(const std::vector<const PipelineTrace*>& pipelines) {
  std::vector<ReplicaArrivals> arrived;
  if (pipelines.size() < 2) return std::vector<DpWaits>(pipelines.size());
  arrived.reserve(pipelines.size());
  for (const PipelineTrace* pl : pipelines) arrived.push_back(arrivalsOf(*pl));
  return dpWaitsFrom(arrived);
}

}  // namespace bubblescope::analysis
