// A test double for libcupti: the activity API the agent calls (subscribe, buffer callbacks,
// enable/disable per kind, records, flush, timestamps), with kernels "launched" by the test
// program through fakeCuptiLaunch. A kernel becomes an activity record only while
// CONCURRENT_KERNEL is enabled, as with the real library. Records are CUDA 13's
// CUpti_ActivityKernel10, packed back to back in the buffers the agent hands over.
#include <cupti.h>

#include <cstdint>
#include <cstring>
#include <ctime>
#include <mutex>
#include <set>

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

uint64_t realtimeNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
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
  uint8_t* next = *record == nullptr
                      ? buffer
                      : reinterpret_cast<uint8_t*>(*record) + sizeof(CUpti_ActivityKernel10);
  if (next + sizeof(CUpti_ActivityKernel10) > buffer + validSize) {
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
  *timestamp = realtimeNs();  // CUPTI's clock is CLOCK_REALTIME on Linux
  return CUPTI_SUCCESS;
}

// Test side. 1 if the kernel became a record (kernels are traced now), else 0.
__attribute__((visibility("default"))) int fakeCuptiLaunch(const char* name, uint64_t startNs,
                                                           uint64_t endNs) {
  std::lock_guard lock(g_mutex);
  if (g_enabled.count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) == 0 || g_request == nullptr) {
    return 0;
  }
  if (g_buffer != nullptr && g_used + sizeof(CUpti_ActivityKernel10) > g_size) completeLocked();
  if (g_buffer == nullptr) {
    size_t maxRecords = 0;
    g_request(&g_buffer, &g_size, &maxRecords);
    g_used = 0;
    if (g_buffer == nullptr || g_size < sizeof(CUpti_ActivityKernel10)) {
      g_buffer = nullptr;
      return 0;
    }
  }
  const CUpti_ActivityKernel10 k = kernelRecord(startNs, endNs, ++g_correlation, name);
  std::memcpy(g_buffer + g_used, &k, sizeof k);
  g_used += sizeof k;
  return 1;
}

__attribute__((visibility("default"))) int fakeCuptiKernelsTraced() {
  std::lock_guard lock(g_mutex);
  return g_enabled.count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != 0 ? 1 : 0;
}

__attribute__((visibility("default"))) int fakeCuptiEnableCalls() {
  std::lock_guard lock(g_mutex);
  return g_enableCalls;
}

}  // extern "C"
