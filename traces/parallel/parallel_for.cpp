#include "traces/parallel/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace bubblescope::traces {

void parallelFor(size_t n, unsigned threads, const std::function<void(size_t)>& work,
                 const std::function<void(size_t)>& progress) {
  if (n == 0) return;
  std::atomic<size_t> next{0};
  std::mutex mutex;
  size_t done = 0;
  std::exception_ptr error;
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        work(i);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!error) error = std::current_exception();
        next = n;  // hand out nothing more
        return;
      }
      if (progress) {
        std::lock_guard lock(mutex);
        progress(++done);
      }
    }
  };
  threads = std::min(threadCount(threads), static_cast<unsigned>(std::min<size_t>(n, ~0u)));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

unsigned threadCount(unsigned threads) {
  return threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
}

unsigned threadsEach(size_t n, unsigned threads) {
  return std::max<unsigned>(1,
                            static_cast<unsigned>(threadCount(threads) / std::max<size_t>(1, n)));
}

}  // namespace bubblescope::traces
