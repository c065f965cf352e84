#pragma once
// Every heap allocation of a benchmark program counted (its global operator new and delete are
// replaced by linking bubblescope_heap_counter): how much is live, and the most there was, so a
// benchmark can give a step's peak heap per event, whatever the allocator keeps: exact to within
// 64 KiB a thread (each thread adds its allocations in 64 KiB lots, heap_counter.cpp).
#include <cstdint>

namespace bubblescope::bench {

int64_t heapLiveBytes();
int64_t heapPeakBytes();
// Starts a new peak from what is live now; returns that.
int64_t restartHeapPeak();

}  // namespace bubblescope::bench
