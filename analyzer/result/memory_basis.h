#pragma once
// What a device memory figure measures, shared by the free-memory columns of every result (a
// pipeline stage's gaps, a rank of a job with no pipeline) and the reports that print them.
#include <cstdint>

namespace bubblescope::analysis {

// What "in use" means: the allocator's reserve (what the job took from the device: Kineto's
// Total Reserved, or the sum of cudaMalloc less cudaFree that Nsight Systems and CUPTI record)
// when the trace has it, else the bytes in live tensors (Kineto's Total Allocated), which
// overstates free memory by the allocator's cache.
enum class MemoryBasis : uint8_t { NotRecorded, Reserved, Allocated };

// "not recorded", "reserved", "allocated"
constexpr const char* memoryBasisName(MemoryBasis basis) {
  switch (basis) {
    case MemoryBasis::Reserved:
      return "reserved";
    case MemoryBasis::Allocated:
      return "allocated";
    case MemoryBasis::NotRecorded:
      break;
  }
  return "not recorded";
}

}  // namespace bubblescope::analysis
