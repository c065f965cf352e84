#pragma once
// Ties GPU work to ops: a kernel belongs to the op whose range encloses its launch call (same
// thread, joined on the CUDA correlation id). An op's execution then becomes the span of its
// kernels, and its compute time their union.
#include <span>
#include <string_view>
#include <vector>

#include "analyzer/recognize/rank_order.h"
#include "analyzer/recognize/recognized.h"
#include "traces/model/trace.h"

namespace bubblescope::analysis {

// `opThread[i]`: the thread whose range ops.ops[i] is (one per op; std::invalid_argument else).
void attributeKernels(const traces::RankTrace& trace, RankOps& ops,
                      std::span<const traces::ThreadIndex> opThread);

// NCCL's kernels (ncclKernel_*, ncclDevKernel_*): communication, not compute.
bool isNcclKernel(std::string_view name);

// Per kernel name id of the trace: NCCL's or not (1 / 0; -1 for a name no kernel has). A few
// names stand for millions of kernels: each name is judged once.
std::vector<int8_t> ncclNames(const traces::RankTrace& trace);

// The trace's compute kernels (all but NCCL's), sorted by start (RankOps::kernelsForMemory).
std::vector<Interval> computeKernelsByStart(const traces::RankTrace& trace);

// Union length of intervals (sorted or not).
TimeNs unionLength(std::vector<Interval> intervals);

}  // namespace bubblescope::analysis
