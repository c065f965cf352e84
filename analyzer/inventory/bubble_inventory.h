#pragma once
// The bubble inventory (analysis.md §8), for jobs that would fill bubbles with other work
// (PipeFill): per stage, its idle intervals by length (a histogram, and the share of idle in
// intervals of at least 1, 5, 10 and 50 ms: a filler's kernels need bubbles longer than their
// launch cost), whether they repeat step after step, and the device memory free during them when
// the trace records it. Pure: a view of a PipelineResult.
#include <array>
#include <string>
#include <vector>

#include "analyzer/result.h"

namespace bubblescope::analysis {

inline constexpr std::array<TimeNs, 4> kBubbleThresholds = {1'000'000, 5'000'000, 10'000'000,
                                                            50'000'000};

struct BubbleBucket {
  TimeNs from = 0, to = 0;  // [from, to); to = 0: no upper bound
  int count = 0;
  TimeNs idle = 0;
};

struct StageInventory {
  int stage = 0;
  int bubbles = 0;  // idle intervals (a gap's idle, transfers inside it left out)
  TimeNs idle = 0;
  std::vector<BubbleBucket> histogram;  // < 1, 1-5, 5-10, 10-50, >= 50 ms
  std::array<double, kBubbleThresholds.size()>
      shareAtLeast{};  // of idle, in bubbles >= 1/5/10/50 ms
  TimeNs largest = 0;
  bool steady = false;  // every step has as many bubbles >= 1 ms, and idle within 10% of the median
  std::string steadyNote;
  bool freeMemoryKnown = false;  // the model holds no device memory events yet: always false
};

std::vector<StageInventory> bubbleInventory(const PipelineResult& pipeline);

}  // namespace bubblescope::analysis
