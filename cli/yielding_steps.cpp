#include "cli/yielding_steps.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>

#include "cli/own_priority.h"

namespace bubblescope::cli {

// One step's analysis in an idle-class thread: its result once it has one.
struct YieldingSteps::Attempt {
  std::mutex mutex;
  std::condition_variable ended;
  bool done = false;
  StepOutcome outcome;
  std::exception_ptr error;
};

YieldingSteps::YieldingSteps(bool yield, std::chrono::milliseconds patience,
                             std::function<std::optional<CpuTimes>()> cpuTimes)
    : yield_(yield),
      patience_(patience),
      cpuTimes_(std::move(cpuTimes)),
      cores_(std::max(1u, std::thread::hardware_concurrency())),
      last_(cpuTimes_()) {}

YieldingSteps::~YieldingSteps() {
  for (Running& r : running_) r.thread.join();
}

bool YieldingSteps::useIdleClass() {
  if (!yield_) return false;
  const std::optional<CpuTimes> now = cpuTimes_();
  if (!now) return false;  // nothing says the node has time to spare
  if (last_) {
    // Steps read within a few ticks of each other keep the last answer.
    if (const std::optional<bool> idle = hadIdleCpu(*last_, *now, cores_)) {
      nodeIdle_ = *idle;
      last_ = now;
    }
  } else {
    last_ = now;
  }
  return nodeIdle_;
}

void YieldingSteps::joinEnded() {
  for (size_t i = 0; i < running_.size();) {
    bool done = false;
    {
      std::lock_guard lock(running_[i].attempt->mutex);
      done = running_[i].attempt->done;
    }
    if (!done) {
      ++i;
      continue;
    }
    running_[i].thread.join();
    running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

StepOutcome YieldingSteps::read(const std::shared_ptr<const traces::Run>& run,
                                const analysis::AnalyzeOptions& base, int64_t number) {
  joinEnded();
  if (!useIdleClass()) return readOneStep(*run, base, number);
  auto attempt = std::make_shared<Attempt>();
  // The thread holds the run and the options itself: it may outlive this call.
  auto analyse = [attempt, run, base, number] {
    enterIdleClass();
    StepOutcome outcome;
    std::exception_ptr error;
    try {
      outcome = readOneStep(*run, base, number);
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard lock(attempt->mutex);
    attempt->outcome = std::move(outcome);
    attempt->error = error;
    attempt->done = true;
    attempt->ended.notify_all();
  };
  std::thread thread;
  try {
    thread = std::thread(analyse);
  } catch (const std::system_error&) {
    // No thread to be had (the process's or the user's limit): the step is read all the same.
    return readOneStep(*run, base, number);
  }
  ++idle_;
  running_.push_back({std::move(thread), attempt});
  {
    std::unique_lock lock(attempt->mutex);
    if (attempt->ended.wait_for(lock, patience_, [&] { return attempt->done; })) {
      if (attempt->error) std::rethrow_exception(attempt->error);
      return attempt->outcome;
    }
  }
  // The node got busy under it: this thread's priority keeps up where the idle class starves.
  ++again_;
  nodeIdle_ = false;
  return readOneStep(*run, base, number);
}

}  // namespace bubblescope::cli
