// Running totals by kind: the time of each kind over any range of intervals, and the dominant
// kind, checked against summing the intervals one by one.
#include "gui/timeline/kind_totals.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace bubblescope::gui {
namespace {

TEST(KindTotals, RangesAndTheDominantKind) {
  KindTotals t(3);
  const std::vector<std::vector<TimeNs>> intervals = {{5, 0, 0}, {0, 3, 0}, {0, 3, 1}, {2, 0, 4}};
  for (const auto& a : intervals) t.push(a.data());
  EXPECT_EQ(t.size(), 4u);
  EXPECT_EQ(t.of(0, 4, 0), 7);
  EXPECT_EQ(t.of(1, 3, 1), 6);
  EXPECT_EQ(t.of(2, 2, 2), 0) << "an empty range holds nothing";
  EXPECT_EQ(t.dominant(0, 1), 0);
  EXPECT_EQ(t.dominant(1, 3), 1);
  EXPECT_EQ(t.dominant(2, 4), 2);
  EXPECT_EQ(t.dominant(0, 3), 1) << "6 of kind 1 beat 5 of kind 0";
  KindTotals tie(2);
  const TimeNs even[2] = {4, 4};
  tie.push(even);
  EXPECT_EQ(tie.dominant(0, 1), 0) << "a tie goes to the lowest kind";
}

TEST(KindTotals, MatchesSummingIntervalByIntervalOnRandomLanes) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> amount(0, 1000), kindOf(0, 7);
  for (int trial = 0; trial < 20; ++trial) {
    const int kinds = 1 + trial % 8;
    KindTotals t(kinds);
    std::vector<std::vector<TimeNs>> all;
    for (int i = 0; i < 300; ++i) {
      std::vector<TimeNs> a(static_cast<size_t>(kinds), 0);
      a[static_cast<size_t>(kindOf(rng) % kinds)] = amount(rng);
      if (i % 3 == 0) a[0] += amount(rng);  // some intervals split across kinds
      t.push(a.data());
      all.push_back(a);
    }
    for (int q = 0; q < 200; ++q) {
      size_t first = static_cast<size_t>(amount(rng)) % all.size();
      size_t last = static_cast<size_t>(amount(rng)) % (all.size() + 1);
      if (first > last) std::swap(first, last);
      std::vector<TimeNs> sum(static_cast<size_t>(kinds), 0);
      for (size_t i = first; i < last; ++i) {
        for (int k = 0; k < kinds; ++k)
          sum[static_cast<size_t>(k)] += all[i][static_cast<size_t>(k)];
      }
      int best = 0;
      for (int k = 0; k < kinds; ++k) {
        EXPECT_EQ(t.of(first, last, k), sum[static_cast<size_t>(k)]);
        if (sum[static_cast<size_t>(k)] > sum[static_cast<size_t>(best)]) best = k;
      }
      EXPECT_EQ(t.dominant(first, last), best);
    }
  }
}

}  // namespace
}  // namespace bubblescope::gui
