#include "analyzer/replicas/culprit.h"

#include <algorithm>

#include "analyzer/result/printed.h"

namespace bubblescope::analysis {
namespace {

// The part whose excess stands out in its table, or null.
const PartSlowdown* standsOut(const std::vector<PartSlowdown>& parts) {
  if (parts.size() < 2) return nullptr;
  std::vector<const PartSlowdown*> sorted;
  for (const auto& p : parts) sorted.push_back(&p);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](auto* a, auto* b) { return a->slowdown > b->slowdown; });
  const double first = sorted[0]->slowdown - 1, second = std::max(0.0, sorted[1]->slowdown - 1);
  if (first < kStragglerExcess || first < kStandsOut * second) return nullptr;
  return sorted[0];
}

const PartSlowdown* largest(const std::vector<PartSlowdown>& parts) {
  const PartSlowdown* best = nullptr;
  for (const auto& p : parts) {
    if (!best || p.slowdown > best->slowdown) best = &p;
  }
  return best;
}

// The replica whose stalls (its ops' span beyond their replay at measured costs) stand out, where
// stalls, not op costs, make the job slow: more than kStragglerExcess of the ideal step, more than
// the op costs add, and kStandsOut times the next replica's. A slow link or a stalling host in one
// replica holds up every other at the DP sync, while its op costs, and so S_d, stay at the ideal.
// Index into dpRanks, or -1.
int stallingReplica(const JobResult& job) {
  const auto& stalls = job.stallsByReplica;
  if (stalls.size() != job.dpRanks.size() || stalls.size() < 2) return -1;
  const double ideal = static_cast<double>(std::max<TimeNs>(1, job.stepTimeIdeal));
  const TimeNs stalled = job.stepTimeMeasured - job.stepTimeOps;
  if (static_cast<double>(stalled) < kStragglerExcess * ideal ||
      stalled <= job.stepTimeOps - job.stepTimeIdeal) {
    return -1;
  }
  size_t top = 0;
  for (size_t d = 1; d < stalls.size(); ++d) {
    if (stalls[d] > stalls[top]) top = d;
  }
  TimeNs second = 0;
  for (size_t d = 0; d < stalls.size(); ++d) {
    if (d != top) second = std::max(second, stalls[d]);
  }
  const double first = static_cast<double>(stalls[top]);
  if (first < kStragglerExcess * ideal || first < kStandsOut * static_cast<double>(second)) {
    return -1;
  }
  return static_cast<int>(top);
}

}  // namespace

void nameCulprit(JobResult& job) {
  if (job.steps == 0) return;
  const PartSlowdown* replica = standsOut(job.dpRanks);
  const PartSlowdown* stage = standsOut(job.stages);
  const PartSlowdown* kind = largest(job.opTypes);
  const double ideal = static_cast<double>(job.stepTimeIdeal);
  const PartSlowdown* worst = nullptr;
  std::string text;
  if (replica && stage) {
    worst = replica->slowdown >= stage->slowdown ? replica : stage;
    job.culpritDp = replica->id;
    job.culpritStage = stage->id;
    text = replica->name + ", " + stage->name + ": S_d = " + printed("%.2fx", replica->slowdown) +
           ", S_s = " + printed("%.2fx", stage->slowdown);
    if (kind) text += ", " + kind->name;
    for (const TpGroupResult& g : job.tpGroups) {
      if (g.dp == replica->id && g.stage == stage->id && g.slowRank >= 0) {
        text += "; rank " + std::to_string(g.slowRank) + " of its TP group ends last in " +
                printed("%.0f%%", 100 * g.slowShare) + " of the ops";
      }
    }
  } else if (replica) {
    worst = replica;
    job.culpritDp = replica->id;
    text = replica->name + ", every stage: S_d = " + printed("%.2fx", replica->slowdown);
  } else if (stage) {
    worst = stage;
    job.culpritStage = stage->id;
    text = stage->name + ": S_s = " + printed("%.2fx", stage->slowdown);
    if (kind) text += ", " + kind->name;
  } else if (const int d = stallingReplica(job); d >= 0) {
    const PartSlowdown& r = job.dpRanks[static_cast<size_t>(d)];
    const TimeNs stalls = job.stallsByReplica[static_cast<size_t>(d)];
    job.culpritDp = r.id;
    job.culpritStalls = true;
    job.culpritGain = std::max<TimeNs>(0, std::min(stalls, job.stepTimeMeasured - job.stepTimeOps));
    job.culprit = r.name + ": stalls, not op costs: its ops ran " +
                  printed("%.1f ms", static_cast<double>(stalls) / 1e6) +
                  " a step longer than their costs explain (its op costs: S_d = " +
                  printed("%.2fx", r.slowdown) +
                  ") and the other replicas waited for it at the DP sync" +
                  stepWouldShrink(job.culpritGain, job.stepTimeMeasured) + " without them";
    return;
  } else if (!job.sequenceImbalance.empty() && job.slowdown - 1 >= kStragglerExcess) {
    const SequenceImbalance& s = job.sequenceImbalance.front();
    text = "sequence-length imbalance (" + std::to_string(job.sequenceImbalance.size()) +
           " replica(s), e.g. DP replica " + std::to_string(s.dp) + ": mb " +
           std::to_string(s.longestMb) + " ran " + printed("%.2fx", s.longestFactor) +
           " the mean on every stage), not a slow stage or replica";
    worst = kind;
  } else if (kind && kind->slowdown - 1 >= kStragglerExcess) {
    worst = kind;
    text = kind->name + " everywhere: S_k = " + printed("%.2fx", kind->slowdown) +
           " (no single stage or replica stands out: op-to-op variation)";
  } else {
    job.culprit = "no straggler: S = " + printed("%.2fx", job.slowdown);
    // S well above 1 with every part's op costs at the ideal is stalls no one replica owns (a
    // schedule's posts queueing alike everywhere): said, so S and "no straggler" agree.
    const TimeNs stalled = job.stepTimeMeasured - job.stepTimeOps;
    if (static_cast<double>(stalled) >= kStragglerExcess * ideal) {
      job.culprit += ", most of it stalls spread over the replicas (their op costs alone: " +
                     printed("%.2fx", static_cast<double>(job.stepTimeOps) / ideal) +
                     "; each pipeline's culprit says where)";
    }
    job.culprit += "; no stage, DP replica or op type is more than " +
                   printed("%.0f%%", 100 * kStragglerExcess) + " above the ideal";
    return;
  }
  if (worst && ideal > 0) {
    job.culpritGain = static_cast<TimeNs>((worst->slowdown - 1) * ideal);
    job.culpritGain = std::min(job.culpritGain, job.stepTimeMeasured - job.stepTimeIdeal);
    job.culpritGain = std::max<TimeNs>(0, job.culpritGain);
    text += stepWouldShrink(job.culpritGain, job.stepTimeMeasured) + " with it at the ideal";
  }
  job.culprit = text;
}

void addStallingPipeline(JobResult& job, const std::string& pipelineCulprit) {
  if (!job.culpritStalls || pipelineCulprit.empty()) return;
  const size_t at = job.culprit.rfind("; the step would shrink");
  if (at == std::string::npos) return;
  job.culprit.insert(at,
                     "; its pipeline: " + pipelineCulprit.substr(0, pipelineCulprit.find("; ")));
}

}  // namespace bubblescope::analysis
