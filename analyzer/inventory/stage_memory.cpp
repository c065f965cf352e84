#include "analyzer/inventory/stage_memory.h"

#include "analyzer/inventory/device_memory.h"

namespace bubblescope::analysis {

void attachFreeMemory(const traces::Run& run, const PipelineTrace& trace, PipelineResult& result) {
  for (const StageTrace& st : trace.stages) {
    if (st.ranks.empty() || st.ranks.front() >= run.ranks.size()) continue;
    const traces::RankTrace& rank = run.ranks[st.ranks.front()];
    if (rank.memory.size() == 0) continue;  // nothing to read: leave every gap unknown
    const DeviceMemorySeries memory = deviceMemoryOf(rank, st.clockOffset);
    for (StageResult& s : result.stages) {
      if (s.stage != st.stage) continue;
      s.memoryBasis = memory.basis;
      s.deviceMemory = memory.capacity;
    }
    for (Gap& g : result.gaps) {
      if (g.stage == st.stage) g.freeMemory = memory.leastFree(g.start, g.end);
    }
  }
}

}  // namespace bubblescope::analysis
