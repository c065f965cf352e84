#pragma once
// The regression gate's judgement (analysis.md §6), pure: two reports' figures in, per pipeline
// (matched by DP rank) the gated metrics (bubble share in percentage points, S, step time in %)
// each OK, IMPROVED or REGRESSED against its threshold, and the shown-only ones (idle by class,
// S_s per stage).
#include <string>
#include <vector>

#include "analyzer/check/report_figures.h"

namespace bubblescope::analysis {

struct CheckThresholds {
  double bubblePp = 2.0;     // bubble share may rise this many percentage points
  double slowdown = 0.05;    // S may rise this much (absolute)
  double stepTimePct = 5.0;  // the measured step time may rise this many percent
};

enum class MetricUnit {
  Share,     // a fraction of the span, compared in percentage points
  Ratio,     // S or S_s, compared absolutely
  Duration,  // ns, compared in percent
};

enum class MetricVerdict { Ok, Improved, Regressed };

struct MetricComparison {
  int dpRank = 0;
  std::string name;  // "bubble share", "slowdown S", "step time", "idle: imbalance", "S_s stage 2"
  std::string key;   // "bubble_share", "slowdown", "step_time", "idle_imbalance", "stage_2_s"
  MetricUnit unit = MetricUnit::Share;
  double baseline = 0, current = 0;
  double delta = 0;  // in the unit's terms: pp, absolute, percent
  bool gated = false;
  double limit = 0;  // for gated metrics, in the delta's terms
  MetricVerdict verdict = MetricVerdict::Ok;
};

struct PipelineCheck {
  int dpRank = 0;
  int p = 0;
  std::string schedule;
  int m = 0;
  bool utilization = false;  // a job with no pipeline: p is its ranks
  std::vector<MetricComparison> metrics;  // gated first, then shown-only
};

struct CheckResult {
  std::vector<PipelineCheck> pipelines;
  std::vector<std::string> notes;  // pipelines in only one of the reports, ...
  bool regressed() const;
  std::vector<const MetricComparison*> regressions() const;
  std::vector<const MetricComparison*> improvements() const;
};

// Throws CheckInputError naming the current report when the shapes differ (a pipeline's number
// of stages) or when no pipeline is in both.
CheckResult compareReports(const ReportFigures& baseline, const ReportFigures& current,
                           const CheckThresholds& thresholds);

}  // namespace bubblescope::analysis
