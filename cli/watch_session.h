#pragma once
// What `bubblescope watch` does with each step it reads, live or replayed: one line per step, a
// line when a culprit starts or ends (analyzer/watch/culprit_changes.h), and the newest step's
// Prometheus metrics: a file rewritten whole after every step (--prometheus) and /metrics served
// while the watch runs (--listen).
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "analyzer/analyze.h"
#include "analyzer/watch/culprit_changes.h"
#include "analyzer/watch/prometheus_metrics.h"

namespace prometheus {
class Exposer;
}

namespace bubblescope::cli {

// One step of a run, analysed alone: its reading, or why the analysis refused it.
struct StepOutcome {
  std::optional<analysis::watch::StepReading> reading;
  std::string notRead;
};

// Step `number` of `run` analysed alone (`base` with that one step). Pure: reads `run` only, so
// two threads may read one step of one run at once. Throws as analyzeRun() does, but for
// AnalysisInputError, which is the outcome's notRead.
StepOutcome readOneStep(const traces::Run& run, const analysis::AnalyzeOptions& base,
                        int64_t number);

class WatchSession {
 public:
  // `listen`: an address to serve /metrics on ("" none; "9464", "127.0.0.1:9464"). Throws
  // UsageError when it cannot be bound.
  WatchSession(std::ostream& out, std::filesystem::path prometheus, const std::string& listen,
               std::string runId);
  ~WatchSession();

  // Step `number` of `run`, analysed alone (`base` with that one step), as step() says it; a
  // step the analysis refuses gets a line saying why, and no culprit changes on it. A reason
  // that holds step after step (a node's watch of a multi-node job misses the other nodes'
  // ranks) is said for its first step, once more for the second, and with the range of steps
  // when a step reads again or the reason changes.
  void read(const traces::Run& run, const analysis::AnalyzeOptions& base, int64_t number);
  // The same for a step already analysed (readOneStep()).
  void show(int64_t number, const StepOutcome& outcome);
  // The step's line, then the changes it makes sure of, then the Prometheus file. Throws
  // TraceError when the Prometheus file cannot be written.
  void step(const analysis::watch::StepReading& reading);

  int64_t stepsWatched() const { return stepsWatched_; }

 private:
  std::ostream& out_;
  std::filesystem::path prometheus_;
  analysis::watch::CulpritChanges changes_;
  analysis::watch::WatchMetrics metrics_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  int64_t stepsWatched_ = 0, culpritsStarted_ = 0;
  // The steps not read for one reason, one after another.
  struct Unread {
    std::string why;
    int64_t first = 0, last = 0;
    int64_t either = -1;  // the step its "not read either" line named
  };
  Unread unread_;
  void notRead(int64_t number, const std::string& why);
  void sayUnreadEnded();  // the range of steps after the "either" line's, if any
};

// The numbers of the steps the analysis of `run` under `options` holds (its first pipeline's; a
// run's replicas share them), in order; none without a pipeline. Throws AnalysisInputError as
// analyzeRun does.
std::vector<int64_t> stepNumbers(const traces::Run& run, const analysis::AnalyzeOptions& options);

}  // namespace bubblescope::cli
