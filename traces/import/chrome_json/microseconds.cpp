#include "traces/import/chrome_json/microseconds.h"

#include <charconv>

namespace bubblescope::traces::import {
namespace {

constexpr int kMaxSignificant = 19;  // 10^19 - 1 still fits in uint64

bool isSpaceOrQuote(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '"';
}

}  // namespace

std::optional<int64_t> microsToNs(std::string_view s) {
  while (!s.empty() && isSpaceOrQuote(s.back())) s.remove_suffix(1);
  while (!s.empty() && isSpaceOrQuote(s.front())) s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  bool negative = false;
  if (s.front() == '-' || s.front() == '+') {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  // The digits as one integer (at most 19 significant ones), the power of ten it is scaled by,
  // and the first digit that did not fit (for rounding).
  uint64_t mantissa = 0;
  int scale = 0, significant = 0, digits = 0, dropped = -1;
  bool dot = false;
  size_t i = 0;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '.') {
      if (dot) return std::nullopt;
      dot = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    ++digits;
    if (significant < kMaxSignificant) {
      mantissa = mantissa * 10 + static_cast<uint64_t>(c - '0');
      if (mantissa != 0) ++significant;
      if (dot) --scale;
    } else {
      if (dropped < 0) dropped = c - '0';
      if (!dot) ++scale;
    }
  }
  if (digits == 0) return std::nullopt;
  if (i < s.size()) {
    if (s[i] != 'e' && s[i] != 'E') return std::nullopt;
    ++i;
    if (i < s.size() && s[i] == '+') ++i;
    int exponent = 0;
    auto [ptr, ec] = std::from_chars(s.data() + i, s.data() + s.size(), exponent);
    if (ec != std::errc() || ptr != s.data() + s.size() || exponent > 40 || exponent < -60) {
      return std::nullopt;
    }
    scale += exponent;
  }
  scale += 3;  // microseconds -> nanoseconds
  uint64_t v = mantissa;
  if (scale >= 0) {
    for (; scale > 0; --scale) {
      if (__builtin_mul_overflow(v, uint64_t{10}, &v)) return std::nullopt;
    }
    if (dropped >= 5 && v == mantissa) ++v;  // only when nothing was scaled past the digits
  } else {
    int last = dropped < 0 ? 0 : dropped;
    for (; scale < 0; ++scale) {
      last = static_cast<int>(v % 10);
      v /= 10;
    }
    if (last >= 5) ++v;
  }
  if (v > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
  return negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
}

}  // namespace bubblescope::traces::import
