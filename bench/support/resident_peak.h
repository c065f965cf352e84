#pragma once
// The process's peak resident set (VmHWM), and its reset: what a budget "per event" costs the
// machine, where the heap counter (heap_counter.h) gives what the program asked for. The two
// part on a run of many small ranks: the allocator's holes and the binary are resident too.
namespace bubblescope::bench {

// KiB; -1 where /proc/self/status has no VmHWM line.
long residentPeakKiB();
// Starts a new peak from what is resident now (Linux: 5 written to /proc/self/clear_refs).
void restartResidentPeak();

}  // namespace bubblescope::bench
