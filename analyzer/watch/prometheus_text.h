#pragma once
// The newest step's reading in Prometheus' text exposition format (version 0.0.4), for the node
// exporter's textfile collector (`watch --prometheus FILE`) and dashboards (issue 30). Names follow
// Prometheus' conventions: the `bubblescope_` prefix, base units (seconds), `_ratio` for
// fractions and S, `_total` for counters; every series carries the run's id, so several jobs
// watched on one node do not collide. docs/watch.md lists every metric. Pure: text out.
#include <cstdint>
#include <string>

#include "analyzer/watch/step_reading.h"

namespace bubblescope::analysis::watch {

struct WatchCounters {
  std::string runId;            // the job's run id ("" when unknown)
  int64_t stepsWatched = 0;     // steps read since the watch began
  int64_t culpritsStarted = 0;  // culprit changes that started (culprit_changes.h)
};

std::string prometheusText(const StepReading& newest, const WatchCounters& counters);

// A label value as the format quotes it: backslash, double quote and line feed escaped.
std::string prometheusLabelValue(const std::string& value);

}  // namespace bubblescope::analysis::watch
