#include "cli/watch_session.h"

#include <algorithm>

#include <prometheus/exposer.h>
#include <prometheus/registry.h>

#include "analyzer/result/errors.h"
#include "analyzer/watch/step_reading.h"
#include "cli/usage_error.h"
#include "traces/files/output_file.h"

namespace bubblescope::cli {

WatchSession::WatchSession(std::ostream& out, std::filesystem::path prometheus,
                           const std::string& listen, std::string runId)
    : out_(out), prometheus_(std::move(prometheus)), metrics_(runId) {
  if (listen.empty()) return;
  try {
    exposer_ = std::make_unique<prometheus::Exposer>(listen, 1);
  } catch (const std::exception& e) {
    throw UsageError("watch: cannot serve /metrics on '" + listen + "' (" + e.what() + ")");
  }
  exposer_->RegisterCollectable(std::weak_ptr<prometheus::Collectable>(
      std::shared_ptr<prometheus::Collectable>(metrics_.registry())));
}

WatchSession::~WatchSession() = default;

StepOutcome readOneStep(const traces::Run& run, const analysis::AnalyzeOptions& base,
                        int64_t number) {
  analysis::AnalyzeOptions one = base;
  one.firstStep = one.lastStep = number;
  StepOutcome out;
  try {
    out.reading = analysis::watch::readStep(analysis::analyzeRun(run, one));
  } catch (const analysis::AnalysisInputError& e) {
    // The watch names its run once, above its lines: a step's says only what is wrong.
    out.notRead = analysis::outsideRun(run.dir.string(), e.what());
  }
  return out;
}

void WatchSession::read(const traces::Run& run, const analysis::AnalyzeOptions& base,
                        int64_t number) {
  show(number, readOneStep(run, base, number));
}

void WatchSession::show(int64_t number, const StepOutcome& outcome) {
  if (outcome.reading) {
    step(*outcome.reading);
  } else {
    notRead(number, outcome.notRead);
  }
}

void WatchSession::notRead(int64_t number, const std::string& why) {
  if (!unread_.why.empty() && why == unread_.why) {
    if (unread_.first == unread_.last) {
      out_ << "step " << number
           << "  not read either, for the same reason: the steps after it are not listed while "
              "it holds\n";
      unread_.either = number;
    }
    unread_.last = number;
  } else {
    sayUnreadEnded();
    out_ << "step " << number << "  not read: " << why << "\n";
    unread_ = {why, number, number};
  }
  out_.flush();
}

void WatchSession::sayUnreadEnded() {
  // A run of two was said whole by its "either" line: "steps 50-50" would say step 50 twice.
  if (unread_.last != unread_.first && unread_.last != unread_.either) {
    out_ << "steps " << unread_.first + 1 << "-" << unread_.last
         << "  not read, for the same reason as step " << unread_.first << "\n";
  }
  unread_ = {};
}

void WatchSession::step(const analysis::watch::StepReading& reading) {
  sayUnreadEnded();
  ++stepsWatched_;
  out_ << analysis::watch::stepLine(reading) << "\n";
  for (const analysis::watch::CulpritChange& c : changes_.observe(reading)) {
    culpritsStarted_ += c.started;
    out_ << analysis::watch::changeLine(c) << "\n";
  }
  metrics_.update(reading, stepsWatched_, culpritsStarted_);
  // A line per step, as it comes: `watch | tee` and a terminal see it now, not at exit.
  out_.flush();
  if (!prometheus_.empty()) {
    // Whole or not at all: the textfile collector never reads half a file.
    traces::writeOutputFile(prometheus_, metrics_.text());
  }
}

std::vector<int64_t> stepNumbers(const traces::Run& run, const analysis::AnalyzeOptions& options) {
  const analysis::AnalysisResult all = analysis::analyzeRun(run, options);
  std::vector<int64_t> out;
  if (all.pipelines.empty()) return out;
  for (const analysis::StepInfo& s : all.pipelines.front().steps) out.push_back(s.number);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace bubblescope::cli
