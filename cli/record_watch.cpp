#include "cli/record_watch.h"

#include <signal.h>

#include <iostream>

#include "cli/watch_session.h"
#include "traces/files/output_file.h"

namespace bubblescope::cli {

void checkRecordWatch(const LiveWatchOptions& options) {
  if (!options.prometheus.empty()) traces::checkOutputPath(options.prometheus);
  // Bound once and let go: an address that cannot be served is said before the job starts.
  if (!options.listen.empty()) WatchSession probe(std::cout, {}, options.listen, {});
}

RecordWatch::RecordWatch(LiveWatchOptions options, const std::string& runId)
    : options_(std::move(options)) {
  options_.targets.all = true;
  options_.targets.pids.clear();
  options_.targets.runId = runId;
  options_.jobEnded = &jobEnded_;
  thread_ = std::thread([this] { run(); });
}

RecordWatch::~RecordWatch() {
  jobEnded_.store(true);
  if (thread_.joinable()) thread_.join();
}

void RecordWatch::run() {
  // A reader of stdout that went away (`| head`) fails this thread's writes, and does not end
  // `record` while the job runs (blocked here only: the job keeps its own disposition).
  sigset_t pipe;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
  try {
    watchLive(options_);
    std::cout.flush();
  } catch (const std::exception& e) {
    // The job goes on, recorded; only the live lines stop.
    std::cerr << "bubblescope: " << e.what() << " (the job goes on)\n";
  }
}

}  // namespace bubblescope::cli
