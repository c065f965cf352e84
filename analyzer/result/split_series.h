#pragma once
// A stage's split per step, held for the reports: each step's 14 figures packed as a mask of the
// non-zero ones and those as variable-length integers, ~20 bytes a step where a Split is 112 (most
// classes are zero in most steps; at 10^6 steps of PP2 the splits were 224 MB of the peak, issue
// 28). Read in order through its iterator, or one step by index.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <vector>

#include "analyzer/result/split.h"

namespace bubblescope::analysis {

class SplitSeries {
 public:
  class const_iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Split;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Split;

    const_iterator() = default;
    const_iterator(const SplitSeries* series, size_t index, size_t offset)
        : series_(series), index_(index), offset_(offset) {}
    Split operator*() const;
    const_iterator& operator++();
    const_iterator operator++(int) {
      const_iterator before = *this;
      ++*this;
      return before;
    }
    bool operator==(const const_iterator& o) const { return index_ == o.index_; }

   private:
    const SplitSeries* series_ = nullptr;
    size_t index_ = 0, offset_ = 0;
  };

  SplitSeries() = default;
  SplitSeries(std::initializer_list<Split> splits) {
    for (const Split& s : splits) push_back(s);
  }
  void push_back(const Split& s);
  // Room for `steps` more, at the bytes a step with a few non-zero classes takes.
  void reserve(size_t steps);
  // Gives back the room no step took (the steps are done).
  void shrinkToFit() {
    bytes_.shrink_to_fit();
    blockStart_.shrink_to_fit();
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  Split operator[](size_t i) const;  // i < size()
  const_iterator begin() const { return {this, 0, 0}; }
  const_iterator end() const { return {this, size_, bytes_.size()}; }

 private:
  static constexpr size_t kBlock = 32;  // a step by index decodes at most this many

  // The split encoded at `offset`, and where the next one starts.
  Split decode(size_t offset, size_t* next) const;

  std::vector<uint8_t> bytes_;
  std::vector<uint64_t> blockStart_;  // the offset of step kBlock * b
  size_t size_ = 0;
};

}  // namespace bubblescope::analysis
