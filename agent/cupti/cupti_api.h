#pragma once
// CUPTI, loaded at run time behind a table of function pointers: the agent links nothing of
// CUDA, so it loads and records NVTX and NCCL where libcupti is absent or too old. Only the
// calls the agent makes are here; each may be null when the installed CUPTI lacks it.
#include <cupti.h>

#include <string>

namespace bubblescope::agent {

struct CuptiApi {
  CUptiResult (*getVersion)(uint32_t*) = nullptr;
  CUptiResult (*getResultString)(CUptiResult, const char**) = nullptr;
  CUptiResult (*subscribe)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*) = nullptr;
  CUptiResult (*subscribeV2)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*,
                             CUpti_SubscriberParams*) = nullptr;  // 12.6+: names the incumbent
  CUptiResult (*unsubscribe)(CUpti_SubscriberHandle) = nullptr;
  CUptiResult (*setThreadIdType)(CUpti_ActivityThreadIdType) = nullptr;
  CUptiResult (*registerCallbacks)(CUpti_BuffersCallbackRequestFunc,
                                   CUpti_BuffersCallbackCompleteFunc) = nullptr;
  CUptiResult (*enable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*disable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*enableRuntimeApi)(CUpti_CallbackId, uint8_t) = nullptr;  // 12.5+
  CUptiResult (*enableDriverApi)(CUpti_CallbackId, uint8_t) = nullptr;   // 12.5+
  CUptiResult (*getNextRecord)(uint8_t*, size_t, CUpti_Activity**) = nullptr;
  CUptiResult (*getNumDroppedRecords)(CUcontext, uint32_t, size_t*) = nullptr;
  CUptiResult (*flushAll)(uint32_t) = nullptr;
  CUptiResult (*getTimestamp)(uint64_t*) = nullptr;
  CUptiResult (*pushExternalCorrelationId)(CUpti_ExternalCorrelationKind, uint64_t) = nullptr;
  CUptiResult (*popExternalCorrelationId)(CUpti_ExternalCorrelationKind, uint64_t*) = nullptr;
  CUptiResult (*getCallbackName)(CUpti_CallbackDomain, uint32_t, const char**) = nullptr;
  CUptiResult (*getStreamIdEx)(CUcontext, CUstream, uint8_t, uint32_t*) = nullptr;
  CUptiResult (*getDeviceId)(CUcontext, uint32_t*) = nullptr;

  uint32_t version = 0;  // CUPTI_API_VERSION of the loaded library (cuptiGetVersion)
  std::string path;      // where it was loaded from

  // "CUPTI_ERROR_UNKNOWN" (or the number, without cuptiGetResultString).
  std::string resultName(CUptiResult r) const;
};

// Loads libcupti once (BUBBLESCOPE_CUPTI_PATH, then the names the loader finds, then the CUDA
// toolkit's usual places) and resolves the table. nullptr, with the reason in `why`, when no
// usable CUPTI is found. Cold path; thread-safe.
const CuptiApi* loadCupti(std::string* why);

}  // namespace bubblescope::agent
