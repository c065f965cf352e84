// The largest gaps of a job kept as they are found: the same list as sorting them all (largest
// first; of equal gaps, the first found), none shorter than kLeastListedGap.
#include "analyzer/utilization/largest_gaps.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace bubblescope::analysis {
namespace {

IdleGap gapOf(int rank, TimeNs start, TimeNs length) {
  IdleGap g;
  g.rank = rank;
  g.start = start;
  g.end = start + length;
  return g;
}

TEST(LargestGaps, EqualGapsKeepTheFirstFoundAndShortOnesAreNeverListed) {
  LargestGaps largest(2);
  EXPECT_FALSE(largest.wants(kLeastListedGap - 1));
  largest.add(gapOf(0, 0, kLeastListedGap - 1));
  largest.add(gapOf(0, 100, 9'000));
  largest.add(gapOf(1, 200, 9'000));
  largest.add(gapOf(2, 300, 9'000));  // a tie with a full list: not kept
  EXPECT_FALSE(largest.wants(9'000));
  EXPECT_TRUE(largest.wants(9'001));
  const std::vector<IdleGap> kept = std::move(largest).take();
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0].rank, 0);
  EXPECT_EQ(kept[1].rank, 1);
}

TEST(LargestGaps, TheSameListAsSortingEveryGap) {
  for (uint32_t seed = 1; seed <= 30; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const size_t most = rng() % 12;
    LargestGaps largest(most);
    std::vector<IdleGap> all;
    for (int i = static_cast<int>(rng() % 300); i > 0; --i) {
      // Few distinct lengths, so ties are common.
      const IdleGap g = gapOf(i, i * 10, static_cast<TimeNs>(rng() % 8) * 2'000);
      all.push_back(g);
      largest.add(g);
    }
    std::erase_if(all, [](const IdleGap& g) { return g.length() < kLeastListedGap; });
    std::stable_sort(all.begin(), all.end(),
                     [](const IdleGap& a, const IdleGap& b) { return a.length() > b.length(); });
    all.resize(std::min(all.size(), most));
    const std::vector<IdleGap> kept = std::move(largest).take();
    ASSERT_EQ(kept.size(), all.size());
    for (size_t k = 0; k < kept.size(); ++k) {
      EXPECT_EQ(kept[k].rank, all[k].rank);
      EXPECT_EQ(kept[k].length(), all[k].length());
    }
  }
}

}  // namespace
}  // namespace bubblescope::analysis
