#include "analyzer/recognize/work_inside.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

namespace bubblescope::analysis {
namespace {

// A range table of (thread, start, end); `work` marks which are work.
struct Ranges {
  traces::NvtxRanges r;
  std::vector<bool> work;
  void add(traces::ThreadIndex thread, TimeNs start, TimeNs end, bool isWork) {
    r.start.push_back(start);
    r.end.push_back(end);
    r.thread.push_back(thread);
    work.push_back(isWork);
  }
  std::vector<uint32_t> candidates() const {
    std::vector<uint32_t> c;
    for (uint32_t i = 0; i < work.size(); ++i) {
      if (!work[i]) c.push_back(i);
    }
    return c;
  }
  std::vector<bool> sweep() const {
    return candidatesHoldingWork(r, candidates(), [&](uint32_t i) { return bool(work[i]); });
  }
  // The definition, pair by pair.
  std::vector<bool> byDefinition() const {
    std::vector<bool> holds;
    for (uint32_t c : candidates()) {
      bool any = false;
      for (size_t w = 0; w < work.size(); ++w) {
        any = any || (work[w] && r.thread[w] == r.thread[c] && r.start[w] >= r.start[c] &&
                      r.start[w] < r.end[c]);
      }
      holds.push_back(any);
    }
    return holds;
  }
};

TEST(WorkInside, AWorkStartInsideItsThreadsRangeOnly) {
  Ranges t;
  t.add(0, 0, 100, false);  // holds the op below
  t.add(1, 5, 50, false);   // another thread's op does not count
  t.add(0, 10, 20, true);
  t.add(0, 20, 30, false);  // ends before the next op
  t.add(0, 30, 40, true);   // starts at its end: outside
  EXPECT_EQ(t.sweep(), (std::vector<bool>{true, false, false}));
}

TEST(WorkInside, WorkOfTheSameStartCountsInEitherOrder) {
  Ranges before, after;
  before.add(0, 10, 20, true);
  before.add(0, 10, 30, false);
  after.add(0, 10, 30, false);
  after.add(0, 10, 20, true);
  EXPECT_EQ(before.sweep(), std::vector<bool>{true});
  EXPECT_EQ(after.sweep(), std::vector<bool>{true});
}

TEST(WorkInside, AnEmptyRangeHoldsNothing) {
  Ranges t;
  t.add(0, 10, 20, true);
  t.add(0, 10, 10, false);
  EXPECT_EQ(t.sweep(), std::vector<bool>{false});
}

TEST(WorkInside, NestedRangesAllHoldTheWorkInside) {
  Ranges t;
  t.add(0, 0, 100, false);
  t.add(0, 5, 90, false);
  t.add(0, 6, 8, false);  // closed before the op
  t.add(0, 50, 60, true);
  EXPECT_EQ(t.sweep(), (std::vector<bool>{true, true, false}));
}

// Random tables, sorted by start as traces are read and shuffled as one may be made in memory:
// the one pass answers as the definition does for every candidate.
TEST(WorkInside, MatchesTheDefinitionOnRandomTablesSortedOrNot) {
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    std::mt19937 rng(seed);
    Ranges t;
    const int n = 1 + static_cast<int>(rng() % 60);
    for (int i = 0; i < n; ++i) {
      const TimeNs start = rng() % 50, length = rng() % 20;
      t.add(rng() % 3, start, start + length, rng() % 3 == 0);
    }
    std::vector<uint32_t> order(t.work.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return t.r.start[a] < t.r.start[b]; });
    Ranges sorted;
    for (uint32_t i : order) sorted.add(t.r.thread[i], t.r.start[i], t.r.end[i], t.work[i]);
    SCOPED_TRACE("seed " + std::to_string(seed));
    EXPECT_EQ(t.sweep(), t.byDefinition());
    EXPECT_EQ(sorted.sweep(), sorted.byDefinition());
  }
}

}  // namespace
}  // namespace bubblescope::analysis
