#pragma once
// A CUDA 13 kernel activity record (CUpti_ActivityKernel10) as CUPTI fills one, for the decoder's
// unit test and for the fake libcupti that hands such records to the agent.
#include <cupti.h>

#include <cstdint>
#include <cstring>

inline CUpti_ActivityKernel10 kernelRecord(uint64_t start, uint64_t end, uint32_t correlation,
                                           const char* name) {
  CUpti_ActivityKernel10 k;
  std::memset(&k, 0, sizeof k);
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = start;
  k.end = end;
  k.deviceId = 1;
  k.contextId = 5;
  k.streamId = 13;
  k.correlationId = correlation;
  k.name = name;
  k.gridX = 64, k.gridY = 2, k.gridZ = 1;
  k.blockX = 256, k.blockY = 1, k.blockZ = 1;
  k.registersPerThread = 40;
  k.staticSharedMemory = 1024;
  k.dynamicSharedMemory = 2048;
  return k;
}
