#pragma once
// Items grouped by bucket in one array (compressed rows): bucket b holds
// items[offset[b], offset[b + 1]), in the order the items were numbered. 4 bytes an item and 4 a
// bucket, where a vector per bucket cost its 24-byte header, a heap block and its doubling slack
// (~220 bytes a step for the transfers of PP2 at 10^5 steps, issue 28).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace bubblescope::analysis {

// One bucket's items: a stretch of the array, or of the items' own numbers where every item is
// in its bucket in number order (Buckets::of holds no array then).
class Bucket {
 public:
  Bucket(const int* items, uint32_t first, uint32_t count)
      : items_(items), first_(first), count_(count) {}
  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  int operator[](size_t k) const {
    return items_ != nullptr ? items_[first_ + k] : static_cast<int>(first_ + k);
  }

 private:
  const int* items_;
  uint32_t first_, count_;
};

class Buckets {
 public:
  Buckets() = default;
  // Items 0..items-1 into `buckets` buckets: bucketOf(i) is the bucket of item i, or -1 for none.
  // Two passes over the items (count, then place), so nothing grows. Items numbered by bucket
  // already (a pipeline's transfers are matched step by step) keep no array: 4 bytes an item
  // less (2.6 MB at 10,000 stages, issue 28).
  template <class BucketOf>
  static Buckets of(size_t buckets, size_t items, BucketOf&& bucketOf) {
    Buckets b;
    b.offset_.assign(buckets + 1, 0);
    bool inOrder = true;
    int64_t last = 0;
    for (size_t i = 0; i < items; ++i) {
      const int64_t k = bucketOf(i);
      inOrder = inOrder && k >= last;
      if (k >= 0) {
        ++b.offset_[static_cast<size_t>(k) + 1];
        last = k;
      }
    }
    for (size_t k = 0; k < buckets; ++k) b.offset_[k + 1] += b.offset_[k];
    if (inOrder) return b;  // every item has a bucket, in order: bucket b is its offsets' range
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
  size_t items() const { return offset_.empty() ? 0 : offset_.back(); }
  Bucket operator[](size_t bucket) const {
    return {items_.empty() ? nullptr : items_.data(), offset_[bucket],
            offset_[bucket + 1] - offset_[bucket]};
  }

 private:
  std::vector<uint32_t> offset_;
  std::vector<int> items_;  // empty where item i is the i-th of the offsets' ranges
};

}  // namespace bubblescope::analysis
