#include "agent/core/open_ranges.h"

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
    const uint32_t seq = s.ranges.seq.load(std::memory_order_acquire);
    if ((seq & 1) != 0) continue;  // the owner is changing it now
    // Racy reads by design (a sequence lock): the copy is kept only if seq did not move.
    const uint32_t depth = s.ranges.depth;
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
    if (s.ranges.seq.load(std::memory_order_relaxed) == seq) {
      if (ownGeneration != generation) out.resize(before);
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
    const uint32_t depth = s->ranges.depth;
    if (s->generation != generation || depth == 0 || depth > kMaxRangeDepth) continue;
    for (uint32_t i = 0; i < depth; ++i) {
      if ((s->ranges.entries[i].flags & kPushedDormant) == 0) return true;
    }
  }
  return false;
}

}  // namespace bubblescope::agent
