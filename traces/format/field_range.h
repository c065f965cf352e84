#pragma once
// Integers read from a file are checked against what their field can hold before they are narrowed:
// a cast would wrap (meta.rank = 4294967297 read as rank 1) and an enum beyond its last value
// would index past a table. The error names the file and the field.
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <string_view>

#include "traces/errors.h"

namespace bubblescope::traces {

[[noreturn]] inline void failFieldRange(const std::filesystem::path& file, std::string_view field,
                                        int64_t value, int64_t lo, int64_t hi) {
  throw TraceError(file, std::string(field) + " = " + std::to_string(value) + " is out of range (" +
                             std::to_string(lo) + " to " + std::to_string(hi) + ")");
}

// `value` as T, or TraceError when it lies outside [lo, hi] (by default T's own range).
template <class T>
T fieldInRange(const std::filesystem::path& file, std::string_view field, int64_t value,
               int64_t lo = static_cast<int64_t>(std::numeric_limits<T>::min()),
               int64_t hi = static_cast<int64_t>(std::numeric_limits<T>::max())) {
  if (value < lo || value > hi) failFieldRange(file, field, value, lo, hi);
  return static_cast<T>(value);
}

// An enum stored as its number, valid from 0 to `last`.
template <class E>
E enumInRange(const std::filesystem::path& file, std::string_view field, int64_t value, E last) {
  const auto hi = static_cast<int64_t>(last);
  if (value < 0 || value > hi) failFieldRange(file, field, value, 0, hi);
  return static_cast<E>(value);
}

}  // namespace bubblescope::traces
