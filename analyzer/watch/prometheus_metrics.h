#pragma once
// The newest step's reading as Prometheus metrics (issue 30), kept in a prometheus-cpp registry:
// written as a textfile-collector file after each step (text(), the exposition format 0.0.4) and
// served on /metrics by `watch --listen`. Names follow Prometheus' conventions: the `bubblescope_`
// prefix, base units (seconds), `_ratio` for fractions and S, `_total` for counters; every series
// carries the run's id, so several jobs watched on one node do not collide. docs/watch.md lists
// every metric.
#include <cstdint>
#include <memory>
#include <string>

#include "analyzer/watch/step_reading.h"

namespace prometheus {
class Registry;
class Gauge;
class Counter;
template <typename T>
class Family;
}  // namespace prometheus

namespace bubblescope::analysis::watch {

class WatchMetrics {
 public:
  explicit WatchMetrics(const std::string& runId);
  ~WatchMetrics();

  // The newest step, and the watch's counts so far (culprit_changes.h). Thread-safe with a
  // scrape: the registry locks its own families.
  void update(const StepReading& newest, int64_t stepsWatched, int64_t culpritsStarted);
  // Every family in the text exposition format.
  std::string text() const;
  std::shared_ptr<prometheus::Registry> registry() const { return registry_; }

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Gauge>* step_;
  prometheus::Family<prometheus::Gauge>* stepTime_;
  prometheus::Family<prometheus::Gauge>* bubble_;
  prometheus::Family<prometheus::Gauge>* slowdown_;
  prometheus::Family<prometheus::Gauge>* idle_;
  prometheus::Family<prometheus::Gauge>* stageTime_;
  prometheus::Family<prometheus::Gauge>* stageSlowdown_;
  prometheus::Family<prometheus::Gauge>* culprit_;
  prometheus::Family<prometheus::Counter>* stepsWatched_;
  prometheus::Family<prometheus::Counter>* culpritsStarted_;
  prometheus::Gauge* culpritNow_ = nullptr;  // the series of the newest step's culprit, if any
  int64_t stepsCounted_ = 0, startsCounted_ = 0;
};

}  // namespace bubblescope::analysis::watch
