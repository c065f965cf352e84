#include "analyzer/inventory/stage_memory.h"

#include <algorithm>

#include "analyzer/inventory/device_memory.h"
#include "analyzer/recognize/kernel_attribution.h"

namespace bubblescope::analysis {
namespace {

// The rank's compute kernels (not NCCL) in the aligned clock, sorted by start.
std::vector<Interval> computeKernels(const traces::RankTrace& t, TimeNs offset) {
  std::vector<int8_t> nccl(t.strings.size(), -1);  // by name id: -1 not yet known
  std::vector<Interval> out;
  const traces::Kernels& k = t.kernels;
  for (size_t i = 0; i < k.size(); ++i) {
    int8_t& isNccl = nccl[k.name[i]];
    if (isNccl < 0) isNccl = isNcclKernel(t.strings.at(k.name[i])) ? 1 : 0;
    if (!isNccl) out.push_back({k.start[i] + offset, k.end[i] + offset});
  }
  return out;  // the kernels table is sorted by start
}

// The least free bytes over the parts of [start, end] that no compute kernel starting in it covers.
int64_t leastFreeWhileIdle(const DeviceMemorySeries& memory, const std::vector<Interval>& compute,
                           TimeNs start, TimeNs end) {
  auto it = std::lower_bound(compute.begin(), compute.end(), start,
                             [](const Interval& k, TimeNs t) { return k.start < t; });
  int64_t least = traces::kBytesUnknown;
  TimeNs from = start;
  auto window = [&](TimeNs a, TimeNs b) {
    if (b <= a) return;
    const int64_t free = memory.leastFree(a, b);
    if (free != traces::kBytesUnknown && (least == traces::kBytesUnknown || free < least)) {
      least = free;
    }
  };
  for (; it != compute.end() && it->start < end; ++it) {
    window(from, it->start);
    from = std::max(from, it->end);
  }
  window(from, end);
  return least;
}

}  // namespace

void attachFreeMemory(const traces::Run& run, const PipelineTrace& trace, PipelineResult& result) {
  for (const StageTrace& st : trace.stages) {
    if (st.ranks.empty() || st.ranks.front() >= run.ranks.size()) continue;
    const traces::RankTrace& rank = run.ranks[st.ranks.front()];
    if (rank.memory->size() == 0) continue;  // nothing to read: leave every gap unknown
    const DeviceMemorySeries memory = deviceMemoryOf(rank, st.clockOffset);
    for (StageResult& s : result.stages) {
      if (s.stage != st.stage) continue;
      s.memoryBasis = memory.basis;
      s.deviceMemory = memory.capacity;
    }
    if (!memory.freeKnown()) continue;
    const std::vector<Interval> compute = computeKernels(rank, st.clockOffset);
    for (Gap& g : result.gaps) {
      if (g.stage == st.stage) g.freeMemory = leastFreeWhileIdle(memory, compute, g.start, g.end);
    }
    for (Bubble& b : result.bubbles) {
      if (b.stage == st.stage) b.freeMemory = leastFreeWhileIdle(memory, compute, b.start, b.end);
    }
  }
}

}  // namespace bubblescope::analysis
