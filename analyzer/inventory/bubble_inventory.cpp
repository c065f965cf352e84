#include "analyzer/inventory/bubble_inventory.h"

#include <algorithm>
#include <cmath>

namespace bubblescope::analysis {
namespace {

// Within this of the median step's idle a stage's bubbles count as the same every step.
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

}  // namespace

std::vector<StageInventory> bubbleInventory(const PipelineResult& pl) {
  std::vector<StageInventory> out(pl.stages.size());
  const size_t steps = pl.steps.size();
  // Per stage and step: idle and bubbles of at least 1 ms.
  std::vector<std::vector<TimeNs>> stepIdle(out.size(), std::vector<TimeNs>(steps, 0));
  std::vector<std::vector<int>> stepLong(out.size(), std::vector<int>(steps, 0));
  for (size_t s = 0; s < out.size(); ++s) {
    out[s].stage = pl.stages[s].stage;
    out[s].histogram = emptyHistogram();
  }
  for (const Gap& g : pl.gaps) {
    if (g.idle <= 0 || g.stage < 0 || static_cast<size_t>(g.stage) >= out.size()) continue;
    StageInventory& inv = out[static_cast<size_t>(g.stage)];
    ++inv.bubbles;
    inv.idle += g.idle;
    inv.largest = std::max(inv.largest, g.idle);
    for (BubbleBucket& b : inv.histogram) {
      if (g.idle >= b.from && (b.to == 0 || g.idle < b.to)) {
        ++b.count;
        b.idle += g.idle;
      }
    }
    for (size_t k = 0; k < kBubbleThresholds.size(); ++k) {
      if (g.idle >= kBubbleThresholds[k]) inv.shareAtLeast[k] += static_cast<double>(g.idle);
    }
    if (g.step >= 0 && static_cast<size_t>(g.step) < steps) {
      stepIdle[g.stage][g.step] += g.idle;
      if (g.idle >= kBubbleThresholds[0]) ++stepLong[g.stage][g.step];
    }
  }
  for (size_t s = 0; s < out.size(); ++s) {
    StageInventory& inv = out[s];
    for (double& share : inv.shareAtLeast) {
      share = inv.idle > 0 ? share / static_cast<double>(inv.idle) : 0;
    }
    if (steps < 2) {
      inv.steadyNote = "one step: cannot tell";
      continue;
    }
    std::vector<TimeNs> sorted = stepIdle[s];
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(steps / 2),
                     sorted.end());
    const double median = static_cast<double>(sorted[steps / 2]);
    bool same = std::all_of(stepLong[s].begin(), stepLong[s].end(),
                            [&](int n) { return n == stepLong[s][0]; });
    double worst = 0;
    for (TimeNs t : stepIdle[s]) {
      worst = std::max(worst, median > 0 ? std::abs(static_cast<double>(t) - median) / median : 0);
    }
    inv.steady = same && worst <= kSteadySpread;
    inv.steadyNote = !same ? "bubbles of 1 ms or more differ in number between steps"
                     : inv.steady
                         ? "the same bubbles every step"
                         : "a step's idle is " + std::to_string(static_cast<int>(worst * 100)) +
                               "% off the median step's";
  }
  return out;
}

}  // namespace bubblescope::analysis
