#pragma once
// A live watch (`watch --all`, `record --watch`, `view --attach`) shares the node with the job it
// follows: the thread that polls and analyses runs at a lower CPU priority, so that on a busy node
// the job's processes wake first and the watch takes what they leave (as monitoring daemons run).
#include <cstdint>

namespace bubblescope::cli {

// The watch's default: --nice 10.
inline constexpr int64_t kWatchNice = 10;

// Lowers the calling thread's priority by `by` nice levels (at most to 19); the threads it starts
// afterwards inherit it, the others of the process keep theirs. 0 or less leaves it. Lowering
// needs no privilege; a failure (a seccomp profile, say) leaves it as it was.
void lowerThisThreadsPriority(int64_t by);

// Puts the calling thread (and the threads it starts afterwards) in Linux's idle scheduling class
// (SCHED_IDLE): any other thread that wakes takes its core at once, and a core running only such
// threads counts as idle when the scheduler places a thread that wakes. An unprivileged thread
// never leaves it, and on a node whose cores are all busy it barely runs: for threads started to
// do one piece of work (cli/yielding_work.h). False where the kernel refused.
bool enterIdleClass();

}  // namespace bubblescope::cli
