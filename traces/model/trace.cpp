#include "traces/model/trace.h"

#include "traces/model/sort.h"

namespace bubblescope::traces {

ThreadIndex RankTrace::threadIndex(uint64_t tid) {
  for (size_t i = 0; i < threads.size(); ++i) {
    if (threads[i].tid == tid) return static_cast<ThreadIndex>(i);
  }
  threads.push_back(Thread{tid, 0});
  return static_cast<ThreadIndex>(threads.size() - 1);
}

StreamIndex RankTrace::streamIndex(uint32_t device, uint64_t streamId) {
  for (size_t i = 0; i < streams.size(); ++i) {
    if (streams[i].device == device && streams[i].streamId == streamId) {
      return static_cast<StreamIndex>(i);
    }
  }
  streams.push_back(Stream{device, streamId, 0});
  return static_cast<StreamIndex>(streams.size() - 1);
}

void sortEvents(RankTrace& trace) {
  sortByStart(trace.ranges);
  sortByStart(trace.openRanges);
  sortByStart(trace.marks);
  sortByStart(trace.kernels);
  sortByStart(trace.memcpys);
  sortByStart(trace.memsets);
  sortByStart(trace.syncs);
  sortByStart(trace.apiCalls);
  sortByStart(trace.ncclCalls);
  sortByStart(trace.memory);

  if (trace.correlations.held()) sortBy(*trace.correlations, trace.correlations->correlation);
}

}  // namespace bubblescope::traces
