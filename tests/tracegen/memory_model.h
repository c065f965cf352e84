#pragma once
// The generator's own model of a rank's device memory under PyTorch's caching allocator, from the
// job's host timeline: the weights and optimizer state are allocated at the job's start; each
// forward allocates its microbatch's activations when its range opens on the host, in a segment
// the allocator reserves for them (a little larger); the backward frees both when its range
// closes (under ZB-V the weight gradient's range: the input gradient frees nothing). So the
// reserve grows with the microbatches in flight (p - s at most on stage s under
// 1F1B) and falls as their backwards end. Times are true times; writers add the rank's skew.
#include <cstdint>
#include <vector>

#include "tests/tracegen/execution.h"

namespace bubblescope::tracegen {

struct AllocatorCall {
  TimeNs time = 0;           // on the host
  int64_t tensorBytes = 0;   // + allocated, - freed (Kineto's "Bytes")
  int64_t segmentBytes = 0;  // + reserved from the device, - released (cudaMalloc / cudaFree)
  uint64_t address = 0;      // the segment's device address
  int64_t allocated = 0, reserved = 0;  // the totals after the call
};

// In time order; empty when the spec records no memory.
std::vector<AllocatorCall> allocatorCalls(const JobTimeline& job, int rank);

// The least free bytes of the device in [from, to] by the model: capacity less the most the
// job reserved at any moment of it.
int64_t leastFreeIn(const std::vector<AllocatorCall>& calls, uint64_t capacity, TimeNs from,
                    TimeNs to);

}  // namespace bubblescope::tracegen
