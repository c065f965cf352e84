#pragma once
// A live watch's CPU work (parsing each poll's snapshots, analysing each step), run so that it
// yields to the job it follows. The watch's CPU is small (3% of a core for 8 ranks at 10 steps/s),
// but when it takes it matters: a pipeline's step is a chain of wake-ups (each op waits for its
// neighbour's data), and a job thread that wakes on a core the watch is using waits. At nice 10
// alone the watch cost 8 stages 0.5-0.8% of their step time on a 2-core machine; with each step's
// analysis in Linux's idle class, 0.3 points less in the same job (docs/benchmarks.md). But an
// idle-class thread barely runs on a node whose cores are all busy, and an unprivileged thread
// never leaves the class. So each piece of work:
//  - while the node has had idle CPU since the last piece (/proc/stat: cli/node_cpu.h), runs in a
//    thread started for it in the idle class;
//  - else in the caller's thread, at its own (lowered) priority;
//  - and when the idle-class thread has not ended within `patience` (the node got busy), runs
//    again in the caller's thread; the first result is taken (both are the same: the work is
//    pure), the idle one left to end on its own.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "cli/node_cpu.h"

namespace bubblescope::cli {

class YieldingWork {
 public:
  // `yield` false: all of it in the caller's thread (`--nice 0`, `view --attach`). `cpuTimes`:
  // where the node's CPU times come from (tests give their own).
  explicit YieldingWork(bool yield,
                        std::chrono::milliseconds patience = std::chrono::milliseconds(250),
                        std::function<std::optional<CpuTimes>()> cpuTimes = readCpuTimes);
  // Waits for the idle-class threads still under way.
  ~YieldingWork();
  YieldingWork(const YieldingWork&) = delete;
  YieldingWork& operator=(const YieldingWork&) = delete;

  // work(), run as above; rethrows what it throws. It may run twice at once, in two threads, and
  // its idle-class run may outlive this call: it must own (or share) what it reads and change
  // nothing else.
  template <class Result>
  Result run(const std::function<Result()>& work) {
    auto result = std::make_shared<std::optional<Result>>();
    if (endedInIdleClass([work, result] { result->emplace(work()); })) {
      return std::move(**result);
    }
    return work();
  }

  int64_t inIdleClass() const { return idle_; }  // pieces given to an idle-class thread
  int64_t ranAgain() const { return again_; }    // ... of them, run again: it was late

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
  // True when `task` ran to its end in an idle-class thread within the patience (what it threw
  // is rethrown); false when it is the caller's to run: the node is busy, no thread could be
  // started, or the thread was late.
  bool endedInIdleClass(std::function<void()> task);
};

}  // namespace bubblescope::cli
