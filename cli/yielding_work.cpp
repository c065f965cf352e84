#include "cli/yielding_work.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>

#include "cli/own_priority.h"

namespace bubblescope::cli {

// One piece of work in an idle-class thread: whether it ended, and what it threw.
struct YieldingWork::Attempt {
  std::mutex mutex;
  std::condition_variable ended;
  bool done = false;
  std::exception_ptr error;
};

YieldingWork::YieldingWork(bool yield, std::chrono::milliseconds patience,
                           std::function<std::optional<CpuTimes>()> cpuTimes)
    : yield_(yield),
      patience_(patience),
      cpuTimes_(std::move(cpuTimes)),
      cores_(std::max(1u, std::thread::hardware_concurrency())) {
  if (yield_) last_ = cpuTimes_();
}

YieldingWork::~YieldingWork() {
  for (Running& r : running_) r.thread.join();
}

bool YieldingWork::useIdleClass() {
  if (!yield_) return false;
  const std::optional<CpuTimes> now = cpuTimes_();
  if (!now) return false;  // nothing says the node has time to spare
  if (last_) {
    // Pieces run within a few ticks of each other keep the last answer.
    if (const std::optional<bool> idle = hadIdleCpu(*last_, *now, cores_)) {
      nodeIdle_ = *idle;
      last_ = now;
    }
  } else {
    last_ = now;
  }
  return nodeIdle_;
}

void YieldingWork::joinEnded() {
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

bool YieldingWork::endedInIdleClass(std::function<void()> task) {
  joinEnded();
  if (!useIdleClass()) return false;
  auto attempt = std::make_shared<Attempt>();
  // The thread holds the task (and what it shares) itself: it may outlive this call.
  auto body = [attempt, task = std::move(task)] {
    enterIdleClass();
    std::exception_ptr error;
    try {
      task();
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard lock(attempt->mutex);
    attempt->error = error;
    attempt->done = true;
    attempt->ended.notify_all();
  };
  std::thread thread;
  try {
    thread = std::thread(std::move(body));
  } catch (const std::system_error&) {
    // No thread to be had (the process's or the user's limit): the caller does the work.
    return false;
  }
  ++idle_;
  running_.push_back({std::move(thread), attempt});
  {
    std::unique_lock lock(attempt->mutex);
    if (attempt->ended.wait_for(lock, patience_, [&] { return attempt->done; })) {
      if (attempt->error) std::rethrow_exception(attempt->error);
      return true;
    }
  }
  // The node got busy under it: the caller's priority keeps up where the idle class starves.
  ++again_;
  nodeIdle_ = false;
  return false;
}

}  // namespace bubblescope::cli
