#pragma once
// The inventory of one timeline's idle intervals (analysis.md §8), whoever owns it: a pipeline
// stage (StageInventory) or a rank of a job with no pipeline (RankUtilization::inventory).
// The inventory itself is computed in inventory/; every report shows these types.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/result/memory_basis.h"
#include "traces/model/events.h"
#include "traces/model/time.h"

namespace bubblescope::analysis {

inline constexpr std::array<TimeNs, 4> kBubbleThresholds = {1'000'000, 5'000'000, 10'000'000,
                                                            50'000'000};

struct IdleInterval {
  int step = -1;  // index of its step in the timeline's steps, -1 = none
  TimeNs idle = 0;
  int64_t freeMemory = traces::kBytesUnknown;  // least bytes free during it
};

struct BubbleBucket {
  TimeNs from = 0, to = 0;  // [from, to); to = 0: no upper bound
  int count = 0;
  TimeNs idle = 0;
};

struct IdleInventory {
  int bubbles = 0;  // idle intervals
  TimeNs idle = 0;
  std::vector<BubbleBucket> histogram;  // < 1, 1-5, 5-10, 10-50, >= 50 ms
  std::array<double, kBubbleThresholds.size()>
      shareAtLeast{};  // of idle, in bubbles >= 1/5/10/50 ms
  TimeNs largest = 0;
  bool steady = false;  // every step has as many bubbles >= 1 ms, and idle within 10% of the median
  std::string steadyNote;

  // Free device memory in the bubbles of at least 1 ms (those a fill job could use): the least
  // and the median of each bubble's least free bytes, over those whose free memory is known.
  MemoryBasis memoryBasis = MemoryBasis::NotRecorded;
  uint64_t deviceMemory = 0;  // the device's capacity, 0 = not recorded
  int freeMemoryBubbles = 0;
  int64_t freeMemoryMin = traces::kBytesUnknown, freeMemoryMedian = traces::kBytesUnknown;
  bool freeMemoryKnown() const { return freeMemoryBubbles > 0; }
  std::string freeMemoryNote;  // what was measured, or why free memory is unknown
};

struct StageInventory : IdleInventory {
  int stage = 0;
};

}  // namespace bubblescope::analysis
