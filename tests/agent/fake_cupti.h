#pragma once
// The test side of the fake libcupti (fake_cupti.cpp): what a test program calls, through dlsym
// on the library the agent loaded, to make the CUDA activity a GPU would have produced. Times
// are CLOCK_REALTIME ns; the fake reports them on its own clock (CLOCK_REALTIME +
// FAKE_CUPTI_CLOCK_OFFSET_NS), which the agent converts back through its clock anchors.
#include <cstdint>

extern "C" {

// One kernel launch call made by the calling thread, as CUPTI records it: an API record timed
// around the call (runtime or driver domain, by callback id), one external correlation record per
// kind with an id pushed on this thread (cuptiActivityPushExternalCorrelationId), and the kernel's
// record with the given device times, all under one new correlation id. end = 0: a kernel that
// never finishes (its record carries no timestamps, as CUPTI's incomplete records).
struct FakeCuptiKernel {
  const char* name;  // kept by pointer, as CUPTI does: it must outlive the process's records
  uint64_t start, end;
  uint32_t device, stream;
  uint32_t cbid;
  int driverApi;  // 1: cbid is a driver API call (cuLaunchKernelEx), 0: runtime
};
// The correlation id of the launch, 0 if CUPTI traces nothing now.
using FakeCuptiLaunchKernelFn = uint32_t (*)(const FakeCuptiKernel* kernel);

// A runtime call that returns at `until` (a synchronisation: the call blocks until then), recorded
// as an API record ending at `until` when runtime calls are traced. Its correlation id, 0 if not
// recorded.
using FakeCuptiBlockingCallFn = uint32_t (*)(uint32_t cbid, uint64_t until);

// A device allocation (cudaMalloc: allocation 1) or release (cudaFree: 0) of `bytes` at `address`
// on `device` at time `at`, as CUPTI_ACTIVITY_KIND_MEMORY2 records one. 1 if recorded, 0 if that
// kind is not traced now.
using FakeCuptiMemoryFn = int (*)(uint64_t address, uint64_t bytes, int allocation, uint32_t device,
                                  uint64_t at);

// The device as CUPTI_ACTIVITY_KIND_DEVICE describes it: ordinal, name (kept by pointer) and total
// memory. 1 if recorded, 0 if that kind is not traced now.
using FakeCuptiDeviceFn = int (*)(uint32_t device, const char* name, uint64_t globalMemorySize);

}  // extern "C"
