#include "traces/parallel/parallel_for.h"

#include <algorithm>
#include <thread>

#include "traces/parallel/worker_pool.h"

namespace bubblescope::traces {

void parallelFor(size_t n, unsigned threads, const std::function<void(size_t)>& work,
                 const std::function<void(size_t)>& progress) {
  if (n == 0) return;
  // One loop on threads of its own: never more threads than items.
  WorkerPool pool(static_cast<unsigned>(std::min<size_t>(threadCount(threads), n)));
  pool.run(n, work, progress);
}

unsigned threadCount(unsigned threads) {
  return threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
}

unsigned threadsEach(size_t n, unsigned threads) {
  return std::max<unsigned>(1,
                            static_cast<unsigned>(threadCount(threads) / std::max<size_t>(1, n)));
}

}  // namespace bubblescope::traces
