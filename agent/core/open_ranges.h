#pragma once
// What each thread of the process is inside right now: a copy of every live thread's stack of
// open push/pop ranges, taken by the writer thread while the threads keep running (a copy is
// kept when RangeStack::state did not move meanwhile). This is what a rank stopped in (hung,
// killed) leaves in its trace.
#include <cstdint>
#include <vector>

#include "agent/core/thread_state.h"

namespace bubblescope::agent {

struct OpenRangeCopy {
  uint64_t tid = 0;
  uint32_t depth = 0;  // position in its thread's stack, 0 = outermost
  OpenRange range;
};

// Appends the open ranges of every live thread whose stack belongs to recording `generation`.
// A thread whose stack keeps changing while it is copied (a few tries) is left out this time.
void copyOpenRanges(uint32_t generation, std::vector<OpenRangeCopy>& out);

// Whether a live thread is inside a range of recording `generation` that it pushed while recording
// (a racy look, enough to decide that a file is wanted: a rank blocked in its first receive has
// finished nothing, and its trace must still say where it waits).
bool anyRecordedRangeOpen(uint32_t generation);

}  // namespace bubblescope::agent
