// How the bubblescope process asks glibc's malloc to hold memory.
#pragma once

namespace bubblescope::cli {

// Two settings, for a process whose memory is a run's columns, built and freed phase by phase by
// a few worker threads (import, recognition) and then the main thread (the analysis):
// - Allocations of 64 KiB and more get pages of their own, returned to the system when freed.
//   Under glibc's default the threshold for that rises to 32 MiB as soon as one large column is
//   freed, and the columns after it stay in the heap once freed.
// - One arena a core, not glibc's eight: each arena keeps what its threads freed for themselves,
//   so a worker's freed parse state is not reused by the next file's worker or by the analysis.
//   One arena for every thread took the most off the peak RSS, but its one lock made the threads
//   wait for each other: a pipeline's steps analysed on two threads took longer than on one
//   (issue 28). One a core costs 3-9% of the peak RSS and takes 10-14% off the wall time
//   (docs/benchmarks.md, "A pipeline's steps side by side").
// Together they took a fifth off the peak RSS of `analyze` on the 8-rank Kineto budget job, at
// the same heap (docs/benchmarks.md, issue 29 item 3), with one arena for every thread. Called by the commands that load a run
// to analyse it, before any thread starts; not by the viewer, whose frames would map and unmap
// their scratch buffers, nor by the agent: the job's malloc is the job's.
void configureMalloc();

}  // namespace bubblescope::cli
