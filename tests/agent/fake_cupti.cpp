// A test double for libcupti: the activity API the agent calls (subscribe, buffer callbacks,
// enable/disable per kind, records, flush, timestamps, external correlation, callback names),
// with CUDA work "done" by the test program: kernels through fakeCuptiLaunch (a bare kernel
// record) or fakeCuptiLaunchKernel (a launch call as CUPTI records one: API record, external
// correlations, kernel; fake_cupti.h), blocking calls through fakeCuptiBlockingCall, device memory
// allocations and releases through fakeCuptiMemory and the device's description through
// fakeCuptiDevice. A record is made only while its kind is enabled, as with the real library.
// Records are CUDA 13's (CUpti_ActivityKernel10, CUpti_ActivityAPI,
// CUpti_ActivityExternalCorrelation, CUpti_ActivityMemory4, CUpti_ActivityDevice5), packed back
// to back in the buffers the agent hands over.
//
// CUPTI's clock is CLOCK_REALTIME + FAKE_CUPTI_CLOCK_OFFSET_NS (default 0): a GPU's CUPTI
// timestamps need not be the system clock, and the agent must convert them.
#include "tests/agent/fake_cupti.h"

#include <cupti.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <set>
#include <vector>

#include "tests/agent/cupti_records.h"

namespace {

std::mutex g_mutex;
std::set<int> g_enabled;
CUpti_BuffersCallbackRequestFunc g_request = nullptr;
CUpti_BuffersCallbackCompleteFunc g_complete = nullptr;
uint8_t* g_buffer = nullptr;  // the buffer being filled
size_t g_size = 0;
size_t g_used = 0;
uint32_t g_correlation = 0;
int g_enableCalls = 0;
CUpti_ActivityThreadIdType g_threadIdType = CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT;

// The ids pushed on this thread, per external correlation kind.
thread_local std::vector<uint64_t> t_external[CUPTI_EXTERNAL_CORRELATION_KIND_SIZE];

int64_t clockOffsetNs() {
  static const int64_t offset = [] {
    const char* v = std::getenv("FAKE_CUPTI_CLOCK_OFFSET_NS");
    return v != nullptr ? std::strtoll(v, nullptr, 10) : 0;
  }();
  return offset;
}

uint64_t realtimeNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

// CLOCK_REALTIME ns on CUPTI's clock.
uint64_t onCuptiClock(uint64_t realtime) {
  return realtime + static_cast<uint64_t>(clockOffsetNs());
}

bool enabledLocked(CUpti_ActivityKind kind) {
  return g_enabled.count(kind) != 0;
}

size_t recordSize(const CUpti_Activity& r) {
  switch (r.kind) {
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
      return sizeof(CUpti_ActivityAPI);
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
      return sizeof(CUpti_ActivityExternalCorrelation);
    case CUPTI_ACTIVITY_KIND_MEMORY2:
      return sizeof(CUpti_ActivityMemory4);
    case CUPTI_ACTIVITY_KIND_DEVICE:
      return sizeof(CUpti_ActivityDevice5);
    default:
      return sizeof(CUpti_ActivityKernel10);
  }
}

// Hands the buffer being filled back to the agent (called with g_mutex held, as CUPTI holds its
// own lock; the agent's callback must not call back in).
void completeLocked() {
  if (g_buffer == nullptr) return;
  uint8_t* b = g_buffer;
  const size_t size = g_size, used = g_used;
  g_buffer = nullptr;
  g_used = g_size = 0;
  g_complete(nullptr, 0, b, size, used);
}

// Room for `bytes` of records in the buffer being filled (a fresh one if it is full): false if
// the agent gave no buffer, and the records are lost, as CUPTI drops them.
bool reserveLocked(size_t bytes) {
  if (g_request == nullptr) return false;
  if (g_buffer != nullptr && g_used + bytes > g_size) completeLocked();
  if (g_buffer == nullptr) {
    size_t maxRecords = 0;
    g_request(&g_buffer, &g_size, &maxRecords);
    g_used = 0;
    if (g_buffer == nullptr || g_size < bytes) {
      g_buffer = nullptr;
      return false;
    }
  }
  return true;
}

template <class Record>
void putLocked(const Record& r) {
  std::memcpy(g_buffer + g_used, &r, sizeof r);
  g_used += sizeof r;
}

uint32_t threadIdForRecords() {
  return g_threadIdType == CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM
             ? static_cast<uint32_t>(syscall(SYS_gettid))
             : static_cast<uint32_t>(pthread_self());
}

CUpti_ActivityAPI apiRecord(bool driver, uint32_t cbid, uint64_t start, uint64_t end,
                            uint32_t correlation) {
  CUpti_ActivityAPI a;
  std::memset(&a, 0, sizeof a);
  a.kind = driver ? CUPTI_ACTIVITY_KIND_DRIVER : CUPTI_ACTIVITY_KIND_RUNTIME;
  a.cbid = cbid;
  a.start = start;
  a.end = end;
  a.processId = static_cast<uint32_t>(getpid());
  a.threadId = threadIdForRecords();
  a.correlationId = correlation;
  return a;
}

// The external ids on top of this thread's stacks, as CUPTI attaches them to a call.
std::vector<CUpti_ActivityExternalCorrelation> externalRecords(uint32_t correlation) {
  std::vector<CUpti_ActivityExternalCorrelation> out;
  for (int kind = 0; kind < CUPTI_EXTERNAL_CORRELATION_KIND_SIZE; ++kind) {
    if (t_external[kind].empty()) continue;
    CUpti_ActivityExternalCorrelation e;
    std::memset(&e, 0, sizeof e);
    e.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
    e.externalKind = static_cast<CUpti_ExternalCorrelationKind>(kind);
    e.externalId = t_external[kind].back();
    e.correlationId = correlation;
    out.push_back(e);
  }
  return out;
}

void sleepUntilRealtime(uint64_t ns) {
  timespec ts{static_cast<time_t>(ns / 1'000'000'000u), static_cast<long>(ns % 1'000'000'000u)};
  while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

}  // namespace

extern "C" {

CUptiResult cuptiGetVersion(uint32_t* version) {
  *version = CUPTI_API_VERSION;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiGetResultString(CUptiResult, const char** str) {
  *str = "FAKE_CUPTI_RESULT";
  return CUPTI_SUCCESS;
}

CUptiResult cuptiSubscribe(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc, void*) {
  static int handle;
  *subscriber = reinterpret_cast<CUpti_SubscriberHandle>(&handle);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle) {
  return CUPTI_SUCCESS;
}

CUptiResult cuptiSetThreadIdType(CUpti_ActivityThreadIdType type) {
  std::lock_guard lock(g_mutex);
  g_threadIdType = type;
  return CUPTI_SUCCESS;
}

// The names of the calls this fake records; CUPTI's carry the version suffix.
CUptiResult cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid, const char** name) {
  *name = nullptr;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000) *name = "cudaLaunchKernel_v7000";
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020) {
      *name = "cudaStreamSynchronize_v3020";
    }
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020) {
      *name = "cudaDeviceSynchronize_v3020";
    }
  } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx) *name = "cuLaunchKernelEx";
  }
  return *name != nullptr ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}

CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc request,
                                           CUpti_BuffersCallbackCompleteFunc complete) {
  std::lock_guard lock(g_mutex);
  g_request = request;
  g_complete = complete;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind) {
  std::lock_guard lock(g_mutex);
  g_enabled.insert(kind);
  ++g_enableCalls;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind) {
  std::lock_guard lock(g_mutex);
  g_enabled.erase(kind);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityGetNextRecord(uint8_t* buffer, size_t validSize, CUpti_Activity** record) {
  uint8_t* next =
      *record == nullptr ? buffer : reinterpret_cast<uint8_t*>(*record) + recordSize(**record);
  if (next + sizeof(CUpti_Activity) > buffer + validSize ||
      next + recordSize(*reinterpret_cast<CUpti_Activity*>(next)) > buffer + validSize) {
    return CUPTI_ERROR_MAX_LIMIT_REACHED;
  }
  *record = reinterpret_cast<CUpti_Activity*>(next);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityFlushAll(uint32_t) {
  std::lock_guard lock(g_mutex);
  completeLocked();
  return CUPTI_SUCCESS;
}

CUptiResult cuptiGetTimestamp(uint64_t* timestamp) {
  *timestamp = onCuptiClock(realtimeNs());
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind kind,
                                                   uint64_t id) {
  if (kind <= CUPTI_EXTERNAL_CORRELATION_KIND_INVALID ||
      kind >= CUPTI_EXTERNAL_CORRELATION_KIND_SIZE) {
    return CUPTI_ERROR_INVALID_KIND;
  }
  t_external[kind].push_back(id);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityPopExternalCorrelationId(CUpti_ExternalCorrelationKind kind,
                                                  uint64_t* lastId) {
  if (kind <= CUPTI_EXTERNAL_CORRELATION_KIND_INVALID ||
      kind >= CUPTI_EXTERNAL_CORRELATION_KIND_SIZE) {
    return CUPTI_ERROR_INVALID_KIND;
  }
  if (t_external[kind].empty()) return CUPTI_ERROR_QUEUE_EMPTY;
  if (lastId != nullptr) *lastId = t_external[kind].back();
  t_external[kind].pop_back();
  return CUPTI_SUCCESS;
}

// ---- Test side ----

// A bare kernel record (no launch call). 1 if it became a record (kernels are traced now), else 0.
__attribute__((visibility("default"))) int fakeCuptiLaunch(const char* name, uint64_t startNs,
                                                           uint64_t endNs) {
  std::lock_guard lock(g_mutex);
  if (!enabledLocked(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) return 0;
  if (!reserveLocked(sizeof(CUpti_ActivityKernel10))) return 0;
  putLocked(kernelRecord(onCuptiClock(startNs), onCuptiClock(endNs), ++g_correlation, name));
  return 1;
}

__attribute__((visibility("default"))) uint32_t fakeCuptiLaunchKernel(const FakeCuptiKernel* k) {
  const uint64_t callStart = onCuptiClock(realtimeNs());
  std::lock_guard lock(g_mutex);
  const bool api =
      enabledLocked(k->driverApi != 0 ? CUPTI_ACTIVITY_KIND_DRIVER : CUPTI_ACTIVITY_KIND_RUNTIME);
  const bool kernel = enabledLocked(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (!api && !kernel) return 0;
  const uint32_t correlation = ++g_correlation;
  std::vector<CUpti_ActivityExternalCorrelation> external;
  if (api && enabledLocked(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION)) {
    external = externalRecords(correlation);
  }
  const size_t bytes = external.size() * sizeof(CUpti_ActivityExternalCorrelation) +
                       (api ? sizeof(CUpti_ActivityAPI) : 0) +
                       (kernel ? sizeof(CUpti_ActivityKernel10) : 0);
  if (!reserveLocked(bytes)) return 0;
  // External correlations come just before the call they belong to, as CUPTI writes them.
  for (const auto& e : external) putLocked(e);
  if (api) {
    putLocked(
        apiRecord(k->driverApi != 0, k->cbid, callStart, onCuptiClock(realtimeNs()), correlation));
  }
  if (kernel) {
    // A kernel that never finishes: CUPTI hands its record over (on a forced flush) without
    // timestamps.
    CUpti_ActivityKernel10 r =
        k->end == 0
            ? kernelRecord(0, 0, correlation, k->name)
            : kernelRecord(onCuptiClock(k->start), onCuptiClock(k->end), correlation, k->name);
    r.deviceId = k->device;
    r.streamId = k->stream;
    putLocked(r);
  }
  return correlation;
}

__attribute__((visibility("default"))) uint32_t fakeCuptiBlockingCall(uint32_t cbid,
                                                                      uint64_t until) {
  const uint64_t callStart = onCuptiClock(realtimeNs());
  sleepUntilRealtime(until);
  std::lock_guard lock(g_mutex);
  if (!enabledLocked(CUPTI_ACTIVITY_KIND_RUNTIME)) return 0;
  if (!reserveLocked(sizeof(CUpti_ActivityAPI))) return 0;
  const uint32_t correlation = ++g_correlation;
  // It returned when the GPU got there: at `until`, however late the machine woke this thread.
  putLocked(
      apiRecord(false, cbid, callStart, std::max(onCuptiClock(until), callStart), correlation));
  return correlation;
}

__attribute__((visibility("default"))) int fakeCuptiMemory(uint64_t address, uint64_t bytes,
                                                           int allocation, uint32_t device,
                                                           uint64_t at) {
  std::lock_guard lock(g_mutex);
  if (!enabledLocked(CUPTI_ACTIVITY_KIND_MEMORY2)) return 0;
  if (!reserveLocked(sizeof(CUpti_ActivityMemory4))) return 0;
  CUpti_ActivityMemory4 m;
  std::memset(&m, 0, sizeof m);
  m.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
  m.memoryOperationType = allocation != 0 ? CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION
                                          : CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
  m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.correlationId = ++g_correlation;
  m.address = address;
  m.bytes = bytes;
  m.timestamp = onCuptiClock(at);
  m.processId = static_cast<uint32_t>(getpid());
  m.deviceId = device;
  m.contextId = device + 1;
  putLocked(m);
  return 1;
}

__attribute__((visibility("default"))) int fakeCuptiDevice(uint32_t device, const char* name,
                                                           uint64_t globalMemorySize) {
  std::lock_guard lock(g_mutex);
  if (!enabledLocked(CUPTI_ACTIVITY_KIND_DEVICE)) return 0;
  if (!reserveLocked(sizeof(CUpti_ActivityDevice5))) return 0;
  CUpti_ActivityDevice5 d;
  std::memset(&d, 0, sizeof d);
  d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  d.id = device;
  d.name = name;
  d.globalMemorySize = globalMemorySize;
  putLocked(d);
  return 1;
}

__attribute__((visibility("default"))) int fakeCuptiKernelsTraced() {
  std::lock_guard lock(g_mutex);
  return enabledLocked(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) ? 1 : 0;
}

__attribute__((visibility("default"))) int fakeCuptiEnableCalls() {
  std::lock_guard lock(g_mutex);
  return g_enableCalls;
}

}  // extern "C"
