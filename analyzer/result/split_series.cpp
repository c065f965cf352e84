#include "analyzer/result/split_series.h"

#include <array>

namespace bubblescope::analysis {
namespace {

constexpr size_t kFigures = 5 + kIdleClasses;
static_assert(kFigures <= 16, "a split's mask is 16 bits");

std::array<TimeNs, kFigures> figuresOf(const Split& s) {
  std::array<TimeNs, kFigures> f{s.span, s.compute, s.exposedComm, s.otherBusy, s.idle};
  for (int c = 0; c < kIdleClasses; ++c) f[5 + static_cast<size_t>(c)] = s.idleByClass[c];
  return f;
}

// Zig-zag, so that a negative figure (none should be) costs what its magnitude does.
uint64_t zigzag(TimeNs v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
TimeNs unzigzag(uint64_t u) {
  return static_cast<TimeNs>((u >> 1) ^ (~(u & 1) + 1));
}

}  // namespace

void SplitSeries::push_back(const Split& s) {
  if (size_ % kBlock == 0) blockStart_.push_back(bytes_.size());
  const auto f = figuresOf(s);
  uint16_t mask = 0;
  for (size_t i = 0; i < kFigures; ++i) {
    if (f[i] != 0) mask = static_cast<uint16_t>(mask | (1u << i));
  }
  bytes_.push_back(static_cast<uint8_t>(mask));
  bytes_.push_back(static_cast<uint8_t>(mask >> 8));
  for (size_t i = 0; i < kFigures; ++i) {
    if (f[i] == 0) continue;
    for (uint64_t u = zigzag(f[i]);; u >>= 7) {
      if (u < 0x80) {
        bytes_.push_back(static_cast<uint8_t>(u));
        break;
      }
      bytes_.push_back(static_cast<uint8_t>(u | 0x80));
    }
  }
  ++size_;
}

void SplitSeries::reserve(size_t steps) {
  // The mask, the span, compute, idle and two classes of ~4 bytes each.
  bytes_.reserve(bytes_.size() + steps * 22);
  blockStart_.reserve(blockStart_.size() + steps / kBlock + 1);
}

Split SplitSeries::decode(size_t offset, size_t* next) const {
  const uint16_t mask = static_cast<uint16_t>(bytes_[offset] | (bytes_[offset + 1] << 8));
  offset += 2;
  std::array<TimeNs, kFigures> f{};
  for (size_t i = 0; i < kFigures; ++i) {
    if ((mask & (1u << i)) == 0) continue;
    uint64_t u = 0;
    for (int shift = 0;; shift += 7) {
      const uint8_t b = bytes_[offset++];
      u |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (b < 0x80) break;
    }
    f[i] = unzigzag(u);
  }
  *next = offset;
  Split s;
  s.span = f[0], s.compute = f[1], s.exposedComm = f[2], s.otherBusy = f[3], s.idle = f[4];
  for (int c = 0; c < kIdleClasses; ++c) s.idleByClass[c] = f[5 + static_cast<size_t>(c)];
  return s;
}

Split SplitSeries::operator[](size_t i) const {
  size_t offset = blockStart_[i / kBlock];
  for (size_t skip = i % kBlock; skip > 0; --skip) decode(offset, &offset);
  return decode(offset, &offset);
}

Split SplitSeries::const_iterator::operator*() const {
  size_t next = 0;
  return series_->decode(offset_, &next);
}

SplitSeries::const_iterator& SplitSeries::const_iterator::operator++() {
  series_->decode(offset_, &offset_);
  ++index_;
  return *this;
}

}  // namespace bubblescope::analysis
