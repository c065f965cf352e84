#include "traces/parallel/worker_pool.h"

#include "traces/parallel/parallel_for.h"

namespace bubblescope::traces {

WorkerPool::WorkerPool(unsigned threads) {
  for (unsigned t = 1; t < threadCount(threads); ++t) threads_.emplace_back([this] { serve(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  started_.notify_all();
  for (auto& t : threads_) t.join();
}

void WorkerPool::run(size_t n, const std::function<void(size_t)>& work,
                     const std::function<void(size_t)>& progress) {
  if (n == 0) return;
  {
    std::lock_guard lock(mutex_);
    work_ = &work;
    progress_ = progress ? &progress : nullptr;
    n_ = n;
    done_ = 0;
    next_ = 0;
    error_ = nullptr;
  }
  // One item, or no thread but the caller's: the loop in line.
  const bool inLine = threads_.empty() || n == 1;
  if (!inLine) {
    {
      std::lock_guard lock(mutex_);
      busy_ = static_cast<unsigned>(threads_.size());
      ++loop_;
    }
    started_.notify_all();
  }
  take();
  std::unique_lock lock(mutex_);
  finished_.wait(lock, [&] { return busy_ == 0; });
  work_ = progress_ = nullptr;
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void WorkerPool::serve() {
  size_t seen = 0;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      started_.wait(lock, [&] { return stopping_ || loop_ != seen; });
      if (stopping_) return;
      seen = loop_;
    }
    take();
    std::lock_guard lock(mutex_);
    if (--busy_ == 0) finished_.notify_one();
  }
}

void WorkerPool::take() {
  for (size_t i; (i = next_.fetch_add(1)) < n_;) {
    try {
      (*work_)(i);
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
      next_ = n_;  // hand out nothing more
      return;
    }
    if (progress_) {
      std::lock_guard lock(mutex_);
      (*progress_)(++done_);
    }
  }
}

}  // namespace bubblescope::traces
