#include "analyzer/result/idle_tally.h"

#include <algorithm>

namespace bubblescope::analysis {

std::vector<BubbleBucket> emptyHistogram() {
  std::vector<BubbleBucket> h;
  h.reserve(kBubbleThresholds.size() + 1);  // one a stage: 10,000 stages' growth room was 1 MB
  TimeNs from = 0;
  for (TimeNs to : kBubbleThresholds) {
    h.push_back({from, to, 0, 0});
    from = to;
  }
  h.push_back({from, 0, 0, 0});
  return h;
}

void addIdle(IdleTally& t, const IdleInterval& b) {
  if (b.idle <= 0) return;
  if (t.histogram.empty()) t.histogram = emptyHistogram();
  ++t.bubbles;
  t.idle += b.idle;
  t.largest = std::max(t.largest, b.idle);
  for (BubbleBucket& bucket : t.histogram) {
    if (b.idle >= bucket.from && (bucket.to == 0 || b.idle < bucket.to)) {
      ++bucket.count;
      bucket.idle += b.idle;
    }
  }
  for (size_t k = 0; k < kBubbleThresholds.size(); ++k) {
    if (b.idle >= kBubbleThresholds[k]) t.atLeast[k] += static_cast<double>(b.idle);
  }
  if (b.step >= 0) {
    const auto k = static_cast<size_t>(b.step);
    if (k >= t.stepIdle.size()) {
      t.stepIdle.resize(k + 1, 0);
      t.stepLong.resize(k + 1, 0);
    }
    t.stepIdle[k] += b.idle;
    if (b.idle >= kBubbleThresholds[0]) ++t.stepLong[k];
  }
  if (b.idle >= kBubbleThresholds[0] && b.freeMemory != traces::kBytesUnknown) {
    t.freeMemory.push_back(b.freeMemory);
  }
}

void addBubble(std::vector<IdleTally>& tallies, size_t steps, int stage, int step, TimeNs idle,
               int64_t freeMemory) {
  if (idle <= 0 || stage < 0 || static_cast<size_t>(stage) >= tallies.size()) return;
  const bool inSteps = step >= 0 && static_cast<size_t>(step) < steps;
  addIdle(tallies[static_cast<size_t>(stage)], {inSteps ? step : -1, idle, freeMemory});
}

}  // namespace bubblescope::analysis
