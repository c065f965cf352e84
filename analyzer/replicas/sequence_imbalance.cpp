#include "analyzer/replicas/sequence_imbalance.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <optional>

namespace bubblescope::analysis {

std::optional<SequenceImbalance> sequenceImbalanceOf(const ReplicaSteps& r) {
  const PipelineTrace& pl = *r.pipeline;
  if (pl.p < 2) return std::nullopt;
  double total = 0, residual = 0, spread = 0;
  int64_t factors = 0;
  int longestMb = -1;
  double longest = 0;
  for (const StepView& v : r.views) {
    for (OpKind kind : {OpKind::F, OpKind::B, OpKind::BW}) {
      // cost[stage][mb] relative to the stage's mean over the step's microbatches.
      std::map<int, std::vector<double>> rel;  // mb -> per stage
      for (const StageStep& ss : v.stages) {
        std::map<int, double> cost;
        double sum = 0;
        for (int i : ss.ops) {
          const RecognizedOp& o = pl.stages[ss.stage].ops.ops[i];
          if (o.op.kind != kind || o.op.chunk != 0) continue;
          cost[o.op.mb] = static_cast<double>(o.end - o.start);
          sum += cost[o.op.mb];
        }
        if (cost.size() < 3 || sum <= 0) continue;
        const double mean = sum / static_cast<double>(cost.size());
        for (const auto& [mb, c] : cost) rel[mb].push_back(c / mean);
      }
      for (const auto& [mb, xs] : rel) {
        if (xs.size() < 2) continue;
        double f = 0;
        for (double x : xs) f += x;
        f /= static_cast<double>(xs.size());
        for (double x : xs) {
          total += (x - 1) * (x - 1);
          residual += (x - f) * (x - f);
        }
        spread += (f - 1) * (f - 1);
        ++factors;
        if (&v == &r.views.front() && kind == OpKind::F && f > longest) {
          longest = f;
          longestMb = mb;
        }
      }
    }
  }
  if (factors == 0 || total <= 0) return std::nullopt;
  SequenceImbalance s;
  s.dp = pl.dpRank;
  s.correlation = 1 - residual / total;
  s.spread = std::sqrt(spread / static_cast<double>(factors));
  s.longestMb = longestMb;
  s.longestFactor = longest;
  if (s.correlation < kSequenceCorrelation || s.spread < kSequenceSpread) return std::nullopt;
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "sequence-length imbalance in DP replica %d: per-microbatch costs move together "
                "across its %d stages (%.0f%% of their variation; spread %.0f%%; mb %d ran "
                "%.2fx the mean on every stage): balance sequence lengths across microbatches, "
                "this is not a slow stage",
                s.dp, pl.p, 100 * s.correlation, 100 * s.spread, s.longestMb, s.longestFactor);
  s.text = buf;
  return s;
}

}  // namespace bubblescope::analysis
