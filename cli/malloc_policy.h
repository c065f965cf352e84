// How the bubblescope process asks glibc's malloc to hold memory.
#pragma once

#include <cstddef>

namespace bubblescope::cli {

// Three settings, for a process whose memory is a run's columns, built and freed phase by phase by
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
// - Blocks of 4 MiB and more on transparent huge pages (MADV_HUGEPAGE, for a kernel whose THP
//   setting is "madvise", Debian's): each such block is mapped apart and filled once, and a
//   fault a 4 KiB page was a sixth of `analyze`'s time on an op-level timeline (on a virtual
//   machine, where a fault costs most). 0.85-0.87x the wall time of analysing 10^5 and 10^6
//   steps, at a peak RSS within its run-to-run spread (docs/benchmarks.md, issue 28).
// The first two took a fifth off the peak RSS of `analyze` on the 8-rank Kineto budget job, at
// the same heap (docs/benchmarks.md, issue 29 item 3). Called by the commands that load a run to
// analyse it, before any thread starts; not by the viewer, whose frames would map and unmap
// their scratch buffers, nor by the agent: the job's malloc is the job's.
void configureMalloc();

// Advises a block just allocated onto huge pages, when configureMalloc() was called; the program's
// operator new calls it for blocks of kHugePagesFrom and more (cli/operator_new.cpp).
inline constexpr std::size_t kHugePagesFrom = std::size_t{4} << 20;
void adviseHugePages(void* block, std::size_t bytes);

}  // namespace bubblescope::cli
