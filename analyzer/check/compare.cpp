#include "analyzer/check/compare.h"

#include <map>

namespace bubblescope::analysis {
namespace {

// Deltas are computed from rounded report figures: a hair over the limit is float noise.
constexpr double kEpsilon = 1e-9;

MetricVerdict judge(double delta, double limit) {
  if (delta > limit + kEpsilon) return MetricVerdict::Regressed;
  if (delta < -limit - kEpsilon) return MetricVerdict::Improved;
  return MetricVerdict::Ok;
}

MetricComparison metric(int dp, std::string name, std::string key, MetricUnit unit, double base,
                        double cur) {
  MetricComparison m;
  m.dpRank = dp;
  m.name = std::move(name);
  m.key = std::move(key);
  m.unit = unit;
  m.baseline = base;
  m.current = cur;
  switch (unit) {
    case MetricUnit::Share:
      m.delta = (cur - base) * 100.0;
      break;
    case MetricUnit::Ratio:
      m.delta = cur - base;
      break;
    case MetricUnit::Duration:
      m.delta = base > 0 ? (cur - base) / base * 100.0 : 0.0;
      break;
  }
  return m;
}

MetricComparison gated(MetricComparison m, double limit) {
  m.gated = true;
  m.limit = limit;
  m.verdict = judge(m.delta, limit);
  return m;
}

PipelineCheck comparePipeline(const PipelineFigures& b, const PipelineFigures& c,
                              const CheckThresholds& t) {
  PipelineCheck out;
  out.dpRank = c.dpRank;
  out.p = c.p;
  out.schedule = c.schedule;
  out.m = c.m;
  out.utilization = c.utilization;
  const int dp = c.dpRank;
  // With no pipeline the idle share is gated as the bubble share is (the same idle / span).
  out.metrics.push_back(gated(metric(dp, c.utilization ? "idle share" : "bubble share",
                                     c.utilization ? "idle_share" : "bubble_share",
                                     MetricUnit::Share, b.bubbleShare(), c.bubbleShare()),
                              t.bubblePp));
  if (!c.utilization) {
    out.metrics.push_back(gated(
        metric(dp, "slowdown S", "slowdown", MetricUnit::Ratio, b.slowdown, c.slowdown),
        t.slowdown));
  }
  out.metrics.push_back(
      gated(metric(dp, "step time", "step_time", MetricUnit::Duration,
                   static_cast<double>(b.stepTime), static_cast<double>(c.stepTime)),
            t.stepTimePct));
  for (int k = 0; k < kIdleClasses; ++k) {
    if (b.idleByClass[k] == 0 && c.idleByClass[k] == 0) continue;
    const IdleClass cls = idleClassAt(k);
    out.metrics.push_back(metric(dp, std::string("idle: ") + idleClassName(cls),
                                 std::string("idle_") + idleClassKey(cls), MetricUnit::Share,
                                 b.classShare(k), c.classShare(k)));
  }
  for (int s = 0; s < c.p && !c.utilization; ++s) {
    out.metrics.push_back(metric(dp, "S_s stage " + std::to_string(s),
                                 "stage_" + std::to_string(s) + "_slowdown", MetricUnit::Ratio,
                                 b.stageSlowdown[s], c.stageSlowdown[s]));
  }
  return out;
}

}  // namespace

bool CheckResult::regressed() const {
  return !regressions().empty();
}

std::vector<const MetricComparison*> CheckResult::regressions() const {
  std::vector<const MetricComparison*> out;
  for (const auto& pl : pipelines) {
    for (const auto& m : pl.metrics) {
      if (m.gated && m.verdict == MetricVerdict::Regressed) out.push_back(&m);
    }
  }
  return out;
}

std::vector<const MetricComparison*> CheckResult::improvements() const {
  std::vector<const MetricComparison*> out;
  for (const auto& pl : pipelines) {
    for (const auto& m : pl.metrics) {
      if (m.gated && m.verdict == MetricVerdict::Improved) out.push_back(&m);
    }
  }
  return out;
}

CheckResult compareReports(const ReportFigures& base, const ReportFigures& cur,
                           const CheckThresholds& t) {
  std::map<int, const PipelineFigures*> baseByDp;
  for (const auto& pl : base.pipelines) baseByDp[pl.dpRank] = &pl;
  CheckResult out;
  for (const auto& c : cur.pipelines) {
    auto it = baseByDp.find(c.dpRank);
    if (it == baseByDp.end()) {
      out.notes.push_back("pipeline " + std::to_string(c.dpRank) +
                          " is not in the baseline: not compared");
      continue;
    }
    const PipelineFigures& b = *it->second;
    if (b.utilization != c.utilization) {
      throw CheckInputError(cur.source + ": " +
                            (c.utilization ? "a job with no pipeline" : "a pipeline") +
                            " cannot be compared with the baseline " + base.source + ", " +
                            (b.utilization ? "a job with no pipeline" : "a pipeline"));
    }
    if (b.p != c.p) {
      throw CheckInputError(cur.source + ": pipeline " + std::to_string(c.dpRank) + " has " +
                            std::to_string(c.p) + (c.utilization ? " ranks" : " stages") +
                            " but the baseline's (" + base.source + ") has " + std::to_string(b.p) +
                            ": pipelines of different shapes cannot be compared");
    }
    out.pipelines.push_back(comparePipeline(b, c, t));
    baseByDp.erase(it);
  }
  for (const auto& [dp, pl] : baseByDp) {
    out.notes.push_back("pipeline " + std::to_string(dp) +
                        " of the baseline is not in the current run: not compared");
  }
  if (out.pipelines.empty()) {
    throw CheckInputError(cur.source + ": no pipeline (DP rank) in common with the baseline " +
                          base.source + ": nothing to compare");
  }
  return out;
}

}  // namespace bubblescope::analysis
