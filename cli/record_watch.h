#pragma once
// `record --watch`: while the job runs, `watch`'s line per step on stdout (cli/watch_live.h), for
// the job's own processes (its run id) as they appear; the watch ends with the job. `record`'s
// exit code stays the job's: a watch that cannot start says so in one line and the job goes on.
#include <atomic>
#include <string>
#include <thread>

#include "cli/watch_live.h"

namespace bubblescope::cli {

// Bad --prometheus or --listen: one sentence (UsageError) before the job starts.
void checkRecordWatch(const LiveWatchOptions& options);

class RecordWatch {
 public:
  // Watches the processes of run `runId` from now on.
  RecordWatch(LiveWatchOptions options, const std::string& runId);
  // The job has ended: waits for the watch's last line (a poll, a few seconds at most).
  ~RecordWatch();
  RecordWatch(const RecordWatch&) = delete;
  RecordWatch& operator=(const RecordWatch&) = delete;

 private:
  void run();

  LiveWatchOptions options_;
  std::atomic<bool> jobEnded_{false};
  std::thread thread_;
};

}  // namespace bubblescope::cli
