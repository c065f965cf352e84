#pragma once
// The inventory of one timeline's idle intervals, whoever owns it (a pipeline stage, or a rank of
// a job with no pipeline): the intervals by length (a histogram, and the share of idle in
// intervals of at least 1, 5, 10 and 50 ms: a fill job's kernels need bubbles longer than their
// launch cost), whether they repeat step after step, and the device memory free during them when
// the trace records it. Pure.
#include <vector>

#include "analyzer/result/idle_tally.h"
#include "analyzer/result/inventory_result.h"

namespace bubblescope::analysis {

// `steps`: how many steps the timeline has (steadiness needs two or more). `basis` and
// `deviceMemory`: what the timeline's device memory series measured (device_memory.h); each
// interval carries its own free bytes.
IdleInventory idleInventory(const std::vector<IdleInterval>& intervals, size_t steps,
                            MemoryBasis basis, uint64_t deviceMemory);

// The same inventory from its intervals gathered one at a time (result/idle_tally.h), in the order
// the list would give them: what a summary's analysis keeps of a stage's gaps.
IdleInventory idleInventory(const IdleTally& tally, size_t steps, MemoryBasis basis,
                            uint64_t deviceMemory);

}  // namespace bubblescope::analysis
