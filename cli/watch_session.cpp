#include "cli/watch_session.h"

#include "traces/files/output_file.h"

namespace bubblescope::cli {

WatchSession::WatchSession(std::ostream& out, std::filesystem::path prometheus, std::string runId)
    : out_(out), prometheus_(std::move(prometheus)) {
  counters_.runId = std::move(runId);
}

void WatchSession::step(const analysis::watch::StepReading& reading) {
  ++counters_.stepsWatched;
  lastStep_ = reading.step;
  out_ << analysis::watch::stepLine(reading) << "\n";
  for (const analysis::watch::CulpritChange& c : changes_.observe(reading)) {
    counters_.culpritsStarted += c.started;
    out_ << analysis::watch::changeLine(c) << "\n";
  }
  // A line per step, as it comes: `watch | tee` and a terminal see it now, not at exit.
  out_.flush();
  if (!prometheus_.empty()) {
    // Whole or not at all: the textfile collector never reads half a file.
    traces::writeOutputFile(prometheus_, analysis::watch::prometheusText(reading, counters_));
  }
}

void WatchSession::unreadable(int64_t step, const std::string& why) {
  lastStep_ = step;
  out_ << "step " << step << "  not read: " << why << "\n";
  out_.flush();
}

}  // namespace bubblescope::cli
