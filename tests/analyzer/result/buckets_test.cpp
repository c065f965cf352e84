// Items grouped by bucket (buckets.h): the same buckets whether the items come numbered in bucket
// order (no array kept) or not.
#include "analyzer/result/buckets.h"

#include <gtest/gtest.h>

#include <vector>

namespace bubblescope::analysis {
namespace {

std::vector<std::vector<int>> contents(const Buckets& b) {
  std::vector<std::vector<int>> out(b.size());
  for (size_t k = 0; k < b.size(); ++k) {
    const Bucket bucket = b[k];
    for (size_t j = 0; j < bucket.size(); ++j) out[k].push_back(bucket[j]);
  }
  return out;
}

Buckets of(size_t buckets, const std::vector<int64_t>& bucketOf) {
  return Buckets::of(buckets, bucketOf.size(), [&](size_t i) { return bucketOf[i]; });
}

TEST(Buckets, ItemsNumberedInBucketOrderAreTheirOffsetsRanges) {
  const Buckets b = of(4, {0, 0, 1, 3, 3, 3});
  EXPECT_EQ(contents(b), (std::vector<std::vector<int>>{{0, 1}, {2}, {}, {3, 4, 5}}));
  EXPECT_EQ(b.items(), 6u);
  EXPECT_TRUE(b[2].empty());
}

TEST(Buckets, ItemsOutOfOrderOrWithoutABucketAreListed) {
  const Buckets shuffled = of(3, {2, 0, 1, 0});
  EXPECT_EQ(contents(shuffled), (std::vector<std::vector<int>>{{1, 3}, {2}, {0}}));
  // An item without a bucket, among items in order: the others keep their numbers.
  const Buckets gap = of(2, {0, -1, 1, 1});
  EXPECT_EQ(contents(gap), (std::vector<std::vector<int>>{{0}, {2, 3}}));
  EXPECT_EQ(gap.items(), 3u);
  const Buckets none = of(2, {-1, -1});
  EXPECT_EQ(contents(none), (std::vector<std::vector<int>>{{}, {}}));
  EXPECT_EQ(of(0, {}).size(), 0u);
}

}  // namespace
}  // namespace bubblescope::analysis
