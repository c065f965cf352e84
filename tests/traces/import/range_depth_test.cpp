// Range depths (computeRangeDepths): each range's nesting within its thread and domain, whatever
// order an importer added the ranges in (sorted by start, sorted with more appended, shuffled,
// over many threads), and ranges alike in thread, domain, start and end nest in the order added.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "traces/import/rank_builder.h"

namespace bubblescope::traces::import {
namespace {

struct Range {
  TimeNs start = 0, end = 0;
  ThreadIndex thread = 0;
  StringId domain = 0;
};

std::vector<uint16_t> depthsOf(const std::vector<Range>& ranges) {
  NvtxRanges r;
  for (const Range& x : ranges) {
    r.start.push_back(x.start);
    r.end.push_back(x.end);
    r.thread.push_back(x.thread);
    r.domain.push_back(x.domain);
    r.name.push_back(0);
    r.depth.push_back(0);
    r.kind.push_back(RangeKind{});
  }
  computeRangeDepths(r);
  return r.depth;
}

// By the definition, with one sort on every key: per thread and domain, by start, the longer
// first, then as added; each range's depth is the ranges still open around it.
std::vector<uint16_t> definedDepths(const std::vector<Range>& r) {
  std::vector<size_t> order(r.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::tuple(r[a].thread, r[a].domain, r[a].start, -r[a].end, a) <
           std::tuple(r[b].thread, r[b].domain, r[b].start, -r[b].end, b);
  });
  std::vector<uint16_t> depth(r.size());
  std::vector<TimeNs> open;
  for (size_t k = 0; k < order.size(); ++k) {
    const Range& x = r[order[k]];
    if (k == 0 || x.thread != r[order[k - 1]].thread || x.domain != r[order[k - 1]].domain) {
      open.clear();
    }
    while (!open.empty() &&
           !(open.back() >= x.end && (open.back() > x.start || x.end == x.start))) {
      open.pop_back();
    }
    depth[order[k]] = static_cast<uint16_t>(open.size());
    open.push_back(x.end);
  }
  return depth;
}

TEST(RangeDepth, NestedRangesAreDeeperInAnyOrderAdded) {
  std::vector<Range> r = {{0, 10}, {1, 5}, {2, 3}, {6, 9}, {0, 10, 1}, {4, 4}};
  EXPECT_EQ(depthsOf(r), (std::vector<uint16_t>{0, 1, 2, 1, 0, 2}));
  std::reverse(r.begin(), r.end());
  EXPECT_EQ(depthsOf(r), (std::vector<uint16_t>{2, 0, 1, 2, 1, 0}));
}

TEST(RangeDepth, RangesAlikeNestInTheOrderAdded) {
  // A fused send and receive: one event, two labels, the same span on the same thread.
  EXPECT_EQ(depthsOf({{5, 8}, {5, 8}, {0, 20}}), (std::vector<uint16_t>{1, 2, 0}));
  EXPECT_EQ(depthsOf({{0, 20}, {5, 8}, {5, 8}, {5, 8}}), (std::vector<uint16_t>{0, 1, 2, 3}));
}

TEST(RangeDepth, EveryOrderAnImporterAddsGivesTheDefinedDepths) {
  std::mt19937 random(28);
  for (int threads : {1, 5, 100}) {  // 100 threads x 2 domains: more groups than it partitions
    std::vector<Range> r;
    TimeNs t = 0;
    for (int i = 0; i < 20'000; ++i) {  // an importer's events, sorted by start, some nested
      t += static_cast<TimeNs>(random() % 4);
      const TimeNs len = static_cast<TimeNs>(random() % 30);
      r.push_back({t, t + len, static_cast<ThreadIndex>(random() % threads),
                   static_cast<StringId>(random() % 2)});
      if (random() % 10 == 0) r.push_back(r.back());  // a fused pair
    }
    for (TimeNs s = 0; s < t; s += 997) r.push_back({s, s + 997, 0, 0});  // steps, appended
    SCOPED_TRACE(std::to_string(threads) + " threads");
    EXPECT_EQ(depthsOf(r), definedDepths(r));
    std::shuffle(r.begin(), r.end(), random);
    EXPECT_EQ(depthsOf(r), definedDepths(r));
  }
}

}  // namespace
}  // namespace bubblescope::traces::import
