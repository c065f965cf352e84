// WorkerPool: loop after loop on the same threads, every item once, the first error rethrown
// after every thread has finished with the loop, and the pool usable after it.
#include "traces/parallel/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace bubblescope::traces {
namespace {

TEST(WorkerPool, RunsEveryItemOfEveryLoopExactlyOnce) {
  for (unsigned threads : {0u, 1u, 2u, 5u}) {
    WorkerPool pool(threads);
    for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{7}, size_t{256}, size_t{1000}}) {
      for (int loop = 0; loop < 20; ++loop) {
        std::vector<std::atomic<int>> runs(n);
        pool.run(n, [&](size_t i) { ++runs[i]; });
        for (size_t i = 0; i < n; ++i) {
          ASSERT_EQ(runs[i], 1) << i << " of " << n << ", threads " << threads;
        }
      }
    }
  }
}

TEST(WorkerPool, KeepsItsThreadsFromOneLoopToTheNext) {
  WorkerPool pool(3);
  std::mutex mutex;
  std::set<std::thread::id> seen;
  for (int loop = 0; loop < 200; ++loop) {
    pool.run(64, [&](size_t) {
      std::this_thread::yield();
      std::lock_guard lock(mutex);
      seen.insert(std::this_thread::get_id());
    });
  }
  // The caller and at most two kept threads, however many loops ran.
  EXPECT_LE(seen.size(), 3u);
  EXPECT_GE(seen.size(), 1u);
}

TEST(WorkerPoolErrors, FirstErrorIsRethrownAndThePoolRunsOn) {
  WorkerPool pool(4);
  std::atomic<int> ran{0};
  EXPECT_THROW(pool.run(10000,
                        [&](size_t i) {
                          ++ran;
                          if (i == 3) throw std::runtime_error("item 3");
                        }),
               std::runtime_error);
  EXPECT_GE(ran, 1);
  std::vector<std::atomic<int>> runs(500);
  pool.run(runs.size(), [&](size_t i) { ++runs[i]; });
  for (size_t i = 0; i < runs.size(); ++i) ASSERT_EQ(runs[i], 1) << i;
}

}  // namespace
}  // namespace bubblescope::traces
