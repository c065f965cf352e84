// A stage's splits packed per step: every split reads back exactly, in order and by index, with
// any figures zero, negative or at the ends of the range; and it packs the common case small.
#include "analyzer/result/split_series.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace bubblescope::analysis {
namespace {

bool same(const Split& a, const Split& b) {
  return a.span == b.span && a.compute == b.compute && a.exposedComm == b.exposedComm &&
         a.otherBusy == b.otherBusy && a.idle == b.idle && a.idleByClass == b.idleByClass;
}

// A figure from a mix of the kinds a split holds: mostly zero or microseconds to seconds, now and
// then negative or at the ends of int64.
TimeNs figure(std::mt19937_64& rng) {
  switch (rng() % 8) {
    case 0:
    case 1:
    case 2:
      return 0;
    case 3:
      return static_cast<TimeNs>(rng() % 1'000'000);
    case 4:
      return static_cast<TimeNs>(rng() % 10'000'000'000);
    case 5:
      return -static_cast<TimeNs>(rng() % 1'000'000'000);
    case 6:
      return rng() % 2 ? std::numeric_limits<TimeNs>::max() : std::numeric_limits<TimeNs>::min();
    default:
      return static_cast<TimeNs>(rng());
  }
}

TEST(SplitSeries, EverySplitReadsBackInOrderAndByIndex) {
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::vector<Split> want;
  SplitSeries series;
  for (int i = 0; i < 1000; ++i) {
    Split s;
    s.span = figure(rng), s.compute = figure(rng), s.exposedComm = figure(rng);
    s.otherBusy = figure(rng), s.idle = figure(rng);
    for (TimeNs& c : s.idleByClass) c = figure(rng);
    want.push_back(s);
    series.push_back(s);
  }
  ASSERT_EQ(series.size(), want.size());
  size_t i = 0;
  for (const Split& s : series) {
    ASSERT_TRUE(same(s, want[i])) << "step " << i;
    ++i;
  }
  EXPECT_EQ(i, want.size());
  for (size_t k = 0; k < want.size(); k += 1 + rng() % 7) {
    ASSERT_TRUE(same(series[k], want[k])) << "step " << k;
  }
  ASSERT_TRUE(same(series[want.size() - 1], want.back()));
}

TEST(SplitSeries, EmptyAndAllZero) {
  SplitSeries series;
  EXPECT_TRUE(series.empty());
  EXPECT_EQ(series.begin(), series.end());
  series.push_back(Split{});
  EXPECT_EQ(series.size(), 1u);
  EXPECT_TRUE(same(series[0], Split{}));
  EXPECT_TRUE(same(*series.begin(), Split{}));
}

}  // namespace
}  // namespace bubblescope::analysis
