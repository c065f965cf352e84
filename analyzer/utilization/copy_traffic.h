#pragma once
// The copies and sets of a job told apart by direction, with the time each direction had the
// device to itself and the bytes it moved: what the utilization headline names when copies
// dominate the device time (headline.h). Pure.
#include <vector>

#include "analyzer/result/utilization_result.h"
#include "analyzer/utilization/rank_split.h"
#include "traces/model/events.h"

namespace bubblescope::analysis {

// "HtoD", "DtoH", "DtoD", "PtoP", "HtoH", "array" (a CUDA array on either side), "unknown".
const char* copyDirection(traces::MemcpyKind kind);
inline constexpr const char* kMemsetDirection = "memset";

// One rank's copies by direction, the longest alone first: the time `copiesAlone` (the rank's
// otherBusy, rank_split.h) holds of each direction's copies, and the bytes of the copies that
// start within [lo, hi], the rank's step windows. Directions with no copy there are left out.
std::vector<CopyTraffic> copyTraffic(const std::vector<CopySpan>& copies,
                                     const std::vector<Interval>& copiesAlone, TimeNs lo,
                                     TimeNs hi);

// Adds `more` into `total` direction by direction, the longest alone first again.
void addCopyTraffic(std::vector<CopyTraffic>& total, const std::vector<CopyTraffic>& more);

}  // namespace bubblescope::analysis
