#pragma once
// What `bubblescope watch` does with each step it reads, live or replayed: one line per step, a
// line when a culprit starts or ends (analyzer/watch/culprit_changes.h), and the newest step as
// Prometheus text (--prometheus), rewritten whole after every step.
#include <filesystem>
#include <ostream>
#include <string>

#include "analyzer/watch/culprit_changes.h"
#include "analyzer/watch/prometheus_text.h"

namespace bubblescope::cli {

class WatchSession {
 public:
  WatchSession(std::ostream& out, std::filesystem::path prometheus, std::string runId);

  // The step's line, then the changes it makes sure of, then the Prometheus file. Throws
  // TraceError when the Prometheus file cannot be written.
  void step(const analysis::watch::StepReading& reading);
  // A step that could not be read: its line says why, and no culprit changes on it.
  void unreadable(int64_t step, const std::string& why);

  int64_t stepsWatched() const { return counters_.stepsWatched; }
  int64_t lastStep() const { return lastStep_; }

 private:
  std::ostream& out_;
  std::filesystem::path prometheus_;
  analysis::watch::CulpritChanges changes_;
  analysis::watch::WatchCounters counters_;
  int64_t lastStep_ = INT64_MIN;
};

}  // namespace bubblescope::cli
