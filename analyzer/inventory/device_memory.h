#pragma once
// A rank's device memory over time, as the bubble inventory needs it: how much of the device the
// job holds at each moment (a step function from the trace's memory samples) and the device's
// capacity, so that free memory during an idle interval is capacity minus the most the job held
// in it. Free memory counts this job only: other processes on the same device are not seen.
#include <cstdint>
#include <vector>

#include "analyzer/result/memory_basis.h"
#include "traces/model/trace.h"

namespace bubblescope::analysis {

struct DeviceMemorySeries {
  MemoryBasis basis = MemoryBasis::NotRecorded;
  uint32_t device = 0;
  uint64_t capacity = 0;     // bytes; 0 = the trace does not say
  std::vector<TimeNs> time;  // sorted; used[i] holds from time[i] to time[i + 1]
  std::vector<int64_t> used;

  bool freeKnown() const { return basis != MemoryBasis::NotRecorded && capacity > 0; }
  // The least free bytes at any moment of [start, end] (capacity less the most in use: the value
  // in force at start, and every change inside), or traces::kBytesUnknown when free memory is
  // not known then (no capacity, or no sample at or before end).
  int64_t leastFree(TimeNs start, TimeNs end) const;
  // The most and the least in use at any moment of [start, end], the same way; kBytesUnknown when
  // no sample is at or before end.
  int64_t mostUsed(TimeNs start, TimeNs end) const;
  int64_t leastUsed(TimeNs start, TimeNs end) const;
};

// The series of the device with the most memory samples on this rank (a rank drives one device),
// its times shifted by `offset` into the analysis' clock.
DeviceMemorySeries deviceMemoryOf(const traces::RankTrace& trace, TimeNs offset);
// The same device's bytes in live tensors (basis Allocated), which fall as tensors are freed;
// basis NotRecorded when the trace does not record them (CUDA-level recorders see the reserve).
DeviceMemorySeries liveTensorsOf(const traces::RankTrace& trace, TimeNs offset);

}  // namespace bubblescope::analysis
