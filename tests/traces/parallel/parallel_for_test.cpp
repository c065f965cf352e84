// parallelFor: every item once, progress counted one call at a time, the first error rethrown
// after every thread has finished.
#include "traces/parallel/parallel_for.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

namespace bubblescope::traces {
namespace {

TEST(ParallelFor, RunsEveryItemExactlyOnce) {
  for (unsigned threads : {0u, 1u, 3u, 64u}) {
    std::vector<std::atomic<int>> runs(1000);
    parallelFor(runs.size(), threads, [&](size_t i) { ++runs[i]; });
    for (size_t i = 0; i < runs.size(); ++i) ASSERT_EQ(runs[i], 1) << i << " threads " << threads;
  }
}

TEST(ParallelFor, NoItemsRunsNothing) {
  int calls = 0;
  parallelFor(
      0, 4, [&](size_t) { ++calls; }, [&](size_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(ParallelForProgress, CountsUpToTheItemsOneCallAtATime) {
  std::vector<size_t> seen;
  parallelFor(
      200, 4, [](size_t) {}, [&](size_t done) { seen.push_back(done); });
  ASSERT_EQ(seen.size(), 200u);
  for (size_t k = 0; k < seen.size(); ++k) EXPECT_EQ(seen[k], k + 1);
}

TEST(ParallelForErrors, FirstErrorIsRethrownAndStopsHandingOut) {
  std::atomic<int> ran{0};
  // Each good item takes a millisecond: the other thread runs a few while the failing one
  // unwinds and stops the handing out (the whole list would take 50 s). Empty items ran all
  // 100,000 before a thread preempted mid-throw (a loaded CI machine) could stop them.
  auto fails = [&] {
    parallelFor(100000, 2, [&](size_t i) {
      ++ran;
      if (i == 10) throw std::invalid_argument("item 10 is bad");
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
  };
  EXPECT_THROW(fails(), std::invalid_argument);
  EXPECT_LT(ran.load(), 100000);
}

}  // namespace
}  // namespace bubblescope::traces
