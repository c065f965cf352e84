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
// The same three into a list of the caller's, whose room is kept (a step's lists, rebuilt for
// every step of a run: allocating them each time was a tenth of a 10^6-step analysis, issue 28).
// `v` merged in place; `v` cut to [lo, hi] in place; `out` = a - b (`out` is neither).
void uniteInPlace(IntervalList& v);
void clipInPlace(IntervalList& v, TimeNs lo, TimeNs hi);
void subtractInto(const IntervalList& a, const IntervalList& b, IntervalList& out);
TimeNs totalLength(const IntervalList& a);
// Length of the part of [lo, hi] that `a` (sorted and merged) covers.
TimeNs coveredLength(const IntervalList& a, TimeNs lo, TimeNs hi);

}  // namespace bubblescope::analysis
