#pragma once
// Time in bubblescope: int64 nanoseconds everywhere (CLOCK_REALTIME epoch for captured traces).
#include <cstdint>

namespace bubblescope {

using TimeNs = int64_t;

// A half-open interval [start, end) in ns.
struct Interval {
  TimeNs start = 0;
  TimeNs end = 0;
  TimeNs duration() const { return end - start; }
  bool operator==(const Interval&) const = default;
};

}  // namespace bubblescope
