#pragma once
// Interval arithmetic on sorted, disjoint lists (pure).
#include <vector>

#include "traces/model/time.h"

namespace bubblescope::analysis {

using IntervalList = std::vector<Interval>;

// Sorted, merged union; empty intervals dropped.
IntervalList unite(IntervalList intervals);
// Parts of `a` not covered by `b` (both sorted and merged).
IntervalList subtract(const IntervalList& a, const IntervalList& b);
// Parts of `a` inside [lo, hi].
IntervalList clip(const IntervalList& a, TimeNs lo, TimeNs hi);
TimeNs totalLength(const IntervalList& a);
// Length of the part of [lo, hi] that `a` (sorted and merged) covers.
TimeNs coveredLength(const IntervalList& a, TimeNs lo, TimeNs hi);

}  // namespace bubblescope::analysis
