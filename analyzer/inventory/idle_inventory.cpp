#include "analyzer/inventory/idle_inventory.h"

#include <algorithm>
#include <cmath>

namespace bubblescope::analysis {
namespace {

// Within this of the median step's idle a timeline's bubbles count as the same every step.
constexpr double kSteadySpread = 0.10;

std::vector<BubbleBucket> emptyHistogram() {
  std::vector<BubbleBucket> h;
  TimeNs from = 0;
  for (TimeNs to : kBubbleThresholds) {
    h.push_back({from, to, 0, 0});
    from = to;
  }
  h.push_back({from, 0, 0, 0});
  return h;
}

void judgeSteadiness(const std::vector<IdleInterval>& intervals, size_t steps, IdleInventory& inv) {
  if (steps < 2) {
    inv.steadyNote = "one step: cannot tell";
    return;
  }
  std::vector<TimeNs> stepIdle(steps, 0);
  std::vector<int> stepLong(steps, 0);
  for (const IdleInterval& b : intervals) {
    if (b.idle <= 0 || b.step < 0 || static_cast<size_t>(b.step) >= steps) continue;
    stepIdle[static_cast<size_t>(b.step)] += b.idle;
    if (b.idle >= kBubbleThresholds[0]) ++stepLong[static_cast<size_t>(b.step)];
  }
  std::vector<TimeNs> sorted = stepIdle;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(steps / 2),
                   sorted.end());
  const double median = static_cast<double>(sorted[steps / 2]);
  const bool same =
      std::all_of(stepLong.begin(), stepLong.end(), [&](int n) { return n == stepLong[0]; });
  double worst = 0;
  for (TimeNs t : stepIdle) {
    worst = std::max(worst, median > 0 ? std::abs(static_cast<double>(t) - median) / median : 0);
  }
  inv.steady = same && worst <= kSteadySpread;
  inv.steadyNote = !same ? "bubbles of 1 ms or more differ in number between steps"
                   : inv.steady
                       ? "the same bubbles every step"
                       : "a step's idle is " + std::to_string(static_cast<int>(worst * 100)) +
                             "% off the median step's";
}

void summariseFreeMemory(const std::vector<IdleInterval>& intervals, IdleInventory& inv) {
  if (inv.memoryBasis == MemoryBasis::NotRecorded) {
    inv.freeMemoryNote = "not recorded (the trace has no device memory events)";
    return;
  }
  if (inv.deviceMemory == 0) {
    inv.freeMemoryNote = "device capacity not recorded";
    return;
  }
  std::vector<int64_t> free;
  for (const IdleInterval& b : intervals) {
    if (b.idle >= kBubbleThresholds[0] && b.freeMemory != traces::kBytesUnknown) {
      free.push_back(b.freeMemory);
    }
  }
  inv.freeMemoryBubbles = static_cast<int>(free.size());
  if (free.empty()) {
    inv.freeMemoryNote = "no bubble of 1 ms or more after the first memory sample";
    return;
  }
  std::sort(free.begin(), free.end());
  inv.freeMemoryMin = free.front();
  inv.freeMemoryMedian = free[free.size() / 2];
  inv.freeMemoryNote = std::string("capacity less the job's ") + memoryBasisName(inv.memoryBasis) +
                       " bytes, the least in each bubble of 1 ms or more";
}

}  // namespace

IdleInventory idleInventory(const std::vector<IdleInterval>& intervals, size_t steps,
                            MemoryBasis basis, uint64_t deviceMemory) {
  IdleInventory inv;
  inv.memoryBasis = basis;
  inv.deviceMemory = deviceMemory;
  inv.histogram = emptyHistogram();
  for (const IdleInterval& b : intervals) {
    if (b.idle <= 0) continue;
    ++inv.bubbles;
    inv.idle += b.idle;
    inv.largest = std::max(inv.largest, b.idle);
    for (BubbleBucket& bucket : inv.histogram) {
      if (b.idle >= bucket.from && (bucket.to == 0 || b.idle < bucket.to)) {
        ++bucket.count;
        bucket.idle += b.idle;
      }
    }
    for (size_t k = 0; k < kBubbleThresholds.size(); ++k) {
      if (b.idle >= kBubbleThresholds[k]) inv.shareAtLeast[k] += static_cast<double>(b.idle);
    }
  }
  for (double& share : inv.shareAtLeast) {
    share = inv.idle > 0 ? share / static_cast<double>(inv.idle) : 0;
  }
  judgeSteadiness(intervals, steps, inv);
  summariseFreeMemory(intervals, inv);
  return inv;
}

}  // namespace bubblescope::analysis
