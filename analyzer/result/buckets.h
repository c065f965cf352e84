#pragma once
// Items grouped by bucket in one array (compressed rows): bucket b holds
// items[offset[b], offset[b + 1]), in the order the items were numbered. 4 bytes an item and 4 a
// bucket, where a vector per bucket cost its 24-byte header, a heap block and its doubling slack
// (~220 bytes a step for the transfers of PP2 at 10^5 steps, issue 28).
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace bubblescope::analysis {

class Buckets {
 public:
  Buckets() = default;
  // Items 0..items-1 into `buckets` buckets: bucketOf(i) is the bucket of item i, or -1 for none.
  // Two passes over the items (count, then place), so nothing grows.
  template <class BucketOf>
  static Buckets of(size_t buckets, size_t items, BucketOf&& bucketOf) {
    Buckets b;
    b.offset_.assign(buckets + 1, 0);
    for (size_t i = 0; i < items; ++i) {
      if (const int64_t k = bucketOf(i); k >= 0) ++b.offset_[static_cast<size_t>(k) + 1];
    }
    for (size_t k = 0; k < buckets; ++k) b.offset_[k + 1] += b.offset_[k];
    b.items_.resize(b.offset_[buckets]);
    std::vector<uint32_t> next(b.offset_.begin(), b.offset_.end() - 1);
    for (size_t i = 0; i < items; ++i) {
      if (const int64_t k = bucketOf(i); k >= 0) {
        b.items_[next[static_cast<size_t>(k)]++] = static_cast<int>(i);
      }
    }
    return b;
  }

  size_t size() const { return offset_.empty() ? 0 : offset_.size() - 1; }
  size_t items() const { return items_.size(); }
  std::span<const int> operator[](size_t bucket) const {
    return {items_.data() + offset_[bucket], items_.data() + offset_[bucket + 1]};
  }

 private:
  std::vector<uint32_t> offset_;
  std::vector<int> items_;
};

}  // namespace bubblescope::analysis
