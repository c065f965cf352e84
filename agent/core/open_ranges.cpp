#include "agent/core/open_ranges.h"

#include <algorithm>
#include <cstring>

namespace bubblescope::agent {
namespace {

constexpr int kTries = 8;

// One consistent copy of `s`'s stack, or false if its thread kept changing it.
bool copyStack(const ThreadState& s, uint32_t generation, std::vector<OpenRangeCopy>& out) {
  const size_t before = out.size();
  const uint64_t tid = s.tid.load(std::memory_order_relaxed);
  for (int attempt = 0; attempt < kTries; ++attempt) {
    out.resize(before);
    const uint64_t state = s.ranges.state.load(std::memory_order_acquire);
    // Racy reads by design: the copy is kept only if no push came meanwhile (RangeStack).
    const uint32_t depth = RangeStack::depthOf(state);
    const uint32_t ownGeneration = s.generation;
    if (depth <= kMaxRangeDepth && ownGeneration == generation) {
      for (uint32_t i = 0; i < depth; ++i) {
        OpenRangeCopy c;
        c.tid = tid;
        c.depth = i;
        std::memcpy(static_cast<void*>(&c.range), &s.ranges.entries[i], sizeof(OpenRange));
        out.push_back(c);
      }
    }
    std::atomic_thread_fence(std::memory_order_acquire);
    const uint64_t after = s.ranges.state.load(std::memory_order_relaxed);
    if (after >> 32 == state >> 32) {
      // No entry was written meanwhile, only pops may have come: the entries below both depths
      // are whole (a push under way writes the one at the depth `after` holds, and counts it
      // when done).
      const size_t copied = out.size() - before;
      out.resize(ownGeneration != generation
                     ? before
                     : before + std::min<size_t>(copied, RangeStack::depthOf(after)));
      return true;
    }
  }
  out.resize(before);
  return false;
}

}  // namespace

void copyOpenRanges(uint32_t generation, std::vector<OpenRangeCopy>& out) {
  for (const ThreadState* s = firstThreadState(); s != nullptr; s = s->next) {
    if (s->status.load(std::memory_order_acquire) != ThreadStatus::Active) continue;
    copyStack(*s, generation, out);
  }
}

bool anyRecordedRangeOpen(uint32_t generation) {
  for (const ThreadState* s = firstThreadState(); s != nullptr; s = s->next) {
    if (s->status.load(std::memory_order_acquire) != ThreadStatus::Active) continue;
    const uint32_t depth = s->ranges.depth();
    if (s->generation != generation || depth == 0 || depth > kMaxRangeDepth) continue;
    for (uint32_t i = 0; i < depth; ++i) {
      if ((s->ranges.entries[i].flags & kPushedDormant) == 0) return true;
    }
  }
  return false;
}

}  // namespace bubblescope::agent
