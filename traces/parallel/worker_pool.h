#pragma once
// Threads kept for many short parallel loops in a row (a run's steps, a batch at a time), where
// starting threads for each loop cost more than the loop's work.
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace bubblescope::traces {

class WorkerPool {
 public:
  // `threads` in all, the caller of run() among them (0: one per core).
  explicit WorkerPool(unsigned threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // As parallelFor: work(i) for every i in [0, n), items handed out one at a time,
  // progress(done) after each item, one call at a time, the first exception stopping the handing
  // out and rethrown once every thread has finished with the loop. One loop at a time.
  void run(size_t n, const std::function<void(size_t i)>& work,
           const std::function<void(size_t done)>& progress = {});

 private:
  void serve();
  void take();

  std::mutex mutex_;
  std::condition_variable started_, finished_;
  const std::function<void(size_t)>* work_ = nullptr;
  const std::function<void(size_t)>* progress_ = nullptr;
  size_t n_ = 0, done_ = 0;
  std::atomic<size_t> next_{0};
  size_t loop_ = 0;  // how many loops have started
  unsigned busy_ = 0;
  bool stopping_ = false;
  std::exception_ptr error_;
  std::vector<std::thread> threads_;
};

}  // namespace bubblescope::traces
