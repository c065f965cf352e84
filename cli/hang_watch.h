#pragma once
// `record --hang-timeout SEC`: while the job runs, watches its traces; when no rank has finished
// an op (an NVTX range or an NCCL call) for SEC seconds, writes the hang report (hang.txt,
// hang.json) beside the traces and says so on stderr, once. The job itself is left alone.
// A dormant job writes no traces: its processes are asked where they are instead (the live
// `hang` query), and a job whose open ranges and NCCL call counts have not changed for SEC
// seconds is stalled.
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "analyzer/hang/hang.h"
#include "analyzer/hang/live_run.h"

namespace bubblescope::cli {

// When the job made progress last: pure, so the rule is tested apart from files and threads.
class StallClock {
 public:
  explicit StallClock(double timeoutSeconds)
      : timeoutNs_(static_cast<int64_t>(timeoutSeconds * 1e9)) {}
  // `progress` only grows while ranks finish ops; true once it has not moved for the timeout.
  bool stalled(int64_t nowNs, int64_t progress);

 private:
  int64_t timeoutNs_;
  int64_t progress_ = -1;
  int64_t since_ = 0;
};

class HangWatch {
 public:
  // `ignore`: trace files that were in `dir` before the job started. `liveRunId`: not empty for
  // a dormant job, whose processes (of that run) are asked instead of its traces read.
  HangWatch(std::filesystem::path dir, double timeoutSeconds, std::set<std::string> ignore,
            std::string liveRunId = {});
  ~HangWatch();  // stops watching
  HangWatch(const HangWatch&) = delete;
  HangWatch& operator=(const HangWatch&) = delete;

 private:
  void run();
  int64_t progress() const;
  int64_t liveProgress();
  void report();
  void writeReport(const analysis::hang::HangReport& report);

  std::filesystem::path dir_;
  double timeoutSeconds_;
  std::set<std::string> ignore_;
  std::string liveRunId_;
  // Live: what the processes said at the last look.
  std::vector<analysis::hang::LiveRank> lastAnswers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace bubblescope::cli
