#pragma once
// A live watch's per-step analysis, run so that it yields to the job it follows. The watch's CPU
// is small (3% of a core for 8 ranks at 10 steps/s), but when it takes it matters: a pipeline's
// step is a chain of wake-ups (each op waits for its neighbour's data), and a job thread that
// wakes on a core the watch is using waits. At nice 10 alone the watch cost 8 stages 0.5-0.8% of
// their step time on a 2-core machine; with each step's analysis in Linux's idle class, 0.3
// points less in the same job (docs/benchmarks.md). But an idle-class thread barely runs on a node
// whose cores are all busy, and an unprivileged thread never leaves the class. So each step:
//  - while the node has had idle CPU since the last step (/proc/stat: cli/node_cpu.h), is analysed
//    in a thread started for it in the idle class;
//  - else in the caller's thread, at its own (lowered) priority;
//  - and when the idle-class thread has not ended within `patience` (the node got busy), is
//    analysed again in the caller's thread; the first result is taken (both are the same: the
//    analysis is pure), the idle one left to end on its own.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "analyzer/analyze.h"
#include "cli/node_cpu.h"
#include "cli/watch_session.h"

namespace bubblescope::cli {

class YieldingSteps {
 public:
  // `yield` false: every step in the caller's thread (`--nice 0`). `cpuTimes`: where the node's
  // CPU times come from (tests give their own).
  explicit YieldingSteps(bool yield,
                         std::chrono::milliseconds patience = std::chrono::milliseconds(250),
                         std::function<std::optional<CpuTimes>()> cpuTimes = readCpuTimes);
  // Waits for the idle-class threads still under way.
  ~YieldingSteps();
  YieldingSteps(const YieldingSteps&) = delete;
  YieldingSteps& operator=(const YieldingSteps&) = delete;

  // readOneStep(*run, base, number), run as above; rethrows what it throws.
  StepOutcome read(const std::shared_ptr<const traces::Run>& run,
                   const analysis::AnalyzeOptions& base, int64_t number);

  int64_t inIdleClass() const { return idle_; }  // steps given to an idle-class thread
  int64_t readAgain() const { return again_; }   // ... of them, analysed again: it was late

 private:
  struct Attempt;
  struct Running {
    std::thread thread;
    std::shared_ptr<Attempt> attempt;
  };
  bool yield_;
  std::chrono::milliseconds patience_;
  std::function<std::optional<CpuTimes>()> cpuTimes_;
  unsigned cores_;
  std::optional<CpuTimes> last_;
  bool nodeIdle_ = true;  // what the last reading said (none yet: the watch just began)
  std::vector<Running> running_;
  int64_t idle_ = 0, again_ = 0;

  bool useIdleClass();
  void joinEnded();
};

}  // namespace bubblescope::cli
