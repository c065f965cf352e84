#include "analyzer/inventory/idle_inventory.h"

#include <algorithm>
#include <cmath>

namespace bubblescope::analysis {
namespace {

// Within this of the median step's idle a timeline's bubbles count as the same every step.
constexpr double kSteadySpread = 0.10;

void judgeSteadiness(const IdleTally& tally, size_t steps, IdleInventory& inv) {
  if (steps < 2) {
    inv.steadyNote = "one step: cannot tell";
    return;
  }
  // Steps past `steps` are not the timeline's (their intervals count as no step's).
  std::vector<TimeNs> stepIdle(steps, 0);
  std::vector<int> stepLong(steps, 0);
  std::copy_n(tally.stepIdle.begin(), std::min(steps, tally.stepIdle.size()), stepIdle.begin());
  std::copy_n(tally.stepLong.begin(), std::min(steps, tally.stepLong.size()), stepLong.begin());
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

void summariseFreeMemory(const IdleTally& tally, IdleInventory& inv) {
  if (inv.memoryBasis == MemoryBasis::NotRecorded) {
    inv.freeMemoryNote = "not recorded (the trace has no device memory events)";
    return;
  }
  if (inv.deviceMemory == 0) {
    inv.freeMemoryNote = "device capacity not recorded";
    return;
  }
  std::vector<int64_t> free = tally.freeMemory;
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

IdleInventory idleInventory(const IdleTally& t, size_t steps, MemoryBasis basis,
                            uint64_t deviceMemory) {
  IdleInventory inv;
  inv.memoryBasis = basis;
  inv.deviceMemory = deviceMemory;
  inv.bubbles = t.bubbles;
  inv.idle = t.idle;
  inv.largest = t.largest;
  inv.histogram = t.histogram.empty() ? emptyHistogram() : t.histogram;
  for (size_t k = 0; k < kBubbleThresholds.size(); ++k) {
    inv.shareAtLeast[k] = inv.idle > 0 ? t.atLeast[k] / static_cast<double>(inv.idle) : 0;
  }
  judgeSteadiness(t, steps, inv);
  summariseFreeMemory(t, inv);
  return inv;
}

IdleInventory idleInventory(const std::vector<IdleInterval>& intervals, size_t steps,
                            MemoryBasis basis, uint64_t deviceMemory) {
  IdleTally tally;
  for (const IdleInterval& b : intervals) addIdle(tally, b);
  return idleInventory(tally, steps, basis, deviceMemory);
}

}  // namespace bubblescope::analysis
