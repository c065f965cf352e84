#pragma once
// Which of a rank's ranges hold work of their own thread: what tells a busy host (a dataloader, a
// Python stretch) from a wrapper around work.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "traces/model/events.h"

namespace bubblescope::analysis {

// For each candidate (indexes into `r`, ascending), whether a range `isWork` of the same thread
// starts inside it: at or after its start, before its end. One pass over the ranges by start,
// each candidate open on its thread until that thread's next work decides it: a start inside it
// says yes, one at or past its end no (later work starts later still). Linear and light, where
// every work start copied and sorted (16 bytes a range) was a sixth of recognition's peak.
template <class IsWork>
std::vector<bool> candidatesHoldingWork(const traces::NvtxRanges& r,
                                        const std::vector<uint32_t>& candidates, IsWork isWork) {
  std::vector<bool> holds(candidates.size(), false);
  if (candidates.empty()) return holds;
  struct Thread {
    std::optional<TimeNs> lastWork;                 // the latest work start yet
    std::vector<std::pair<uint32_t, TimeNs>> open;  // candidate slot, its end
  };
  std::unordered_map<traces::ThreadIndex, Thread> threads;
  auto visit = [&](uint32_t i) {
    Thread& th = threads[r.thread[i]];
    if (isWork(i)) {
      for (const auto& [slot, end] : th.open) {
        if (r.start[i] < end) holds[slot] = true;
      }
      th.open.clear();
      th.lastWork = r.start[i];
      return;
    }
    auto it = std::lower_bound(candidates.begin(), candidates.end(), i);
    if (it == candidates.end() || *it != i || r.start[i] >= r.end[i]) return;
    const auto slot = static_cast<uint32_t>(it - candidates.begin());
    // Work of the same start came before it in the order: it starts inside.
    if (th.lastWork == r.start[i]) {
      holds[slot] = true;
    } else {
      th.open.emplace_back(slot, r.end[i]);
    }
  };
  if (std::is_sorted(r.start.begin(), r.start.end())) {
    for (uint32_t i = 0; i < r.size(); ++i) visit(i);
  } else {
    // Traces are sorted by start when read; a trace made in memory may not be.
    std::vector<uint32_t> order(r.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return r.start[a] < r.start[b]; });
    for (uint32_t i : order) visit(i);
  }
  return holds;
}

}  // namespace bubblescope::analysis
