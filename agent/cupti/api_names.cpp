#include "agent/cupti/api_names.h"

#include <array>

#include "agent/cupti/cupti_api.h"

namespace bubblescope::agent {
namespace {

// Runtime calls that launch, copy or wait for nothing and that libraries call in loops:
// Kineto's and wprof's filters, plus the polls of watchdog threads (cudaEventQuery).
constexpr std::array<std::string_view, 24> kNoisyRuntime = {
    "cudaGetDevice",
    "cudaGetDeviceCount",
    "cudaGetDeviceProperties",
    "cudaGetDeviceFlags",
    "cudaDeviceGetAttribute",
    "cudaDeviceGetStreamPriorityRange",
    "cudaGetLastError",
    "cudaPeekAtLastError",
    "cudaStreamIsCapturing",
    "cudaStreamGetCaptureInfo",
    "cudaStreamGetCaptureInfo_v2",
    "cudaStreamGetPriority",
    "cudaThreadExchangeStreamCaptureMode",
    "cudaPointerGetAttributes",
    "cudaFuncGetAttributes",
    "cudaGetFuncBySymbol",
    "cudaDriverGetVersion",
    "cudaRuntimeGetVersion",
    "cudaGetDriverEntryPoint",
    "cudaGetDriverEntryPointByVersion",
    "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
    "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
    "cudaEventQuery",
    "cudaStreamQuery",
};

// Driver calls that put work on the GPU or wait for it.
constexpr std::array<std::string_view, 7> kDriverPrefixes = {
    "cuLaunch",         "cuGraphLaunch",     "cuMemcpy", "cuMemset", "cuStreamSynchronize",
    "cuCtxSynchronize", "cuEventSynchronize"};
constexpr std::string_view kStreamWaitEvent = "cuStreamWaitEvent";

bool startsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// "cudaMemcpyAsync_ptsz" counts as "cudaMemcpyAsync".
std::string_view withoutPerThreadSuffix(std::string_view name) {
  for (std::string_view suffix : {"_ptsz", "_ptds"}) {
    if (name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix) {
      return name.substr(0, name.size() - suffix.size());
    }
  }
  return name;
}

}  // namespace

std::string_view baseApiName(std::string_view name) {
  const size_t v = name.rfind("_v");
  if (v == std::string_view::npos || v + 2 == name.size()) return name;
  for (size_t i = v + 2; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return name;
  }
  return name.substr(0, v);
}

bool keepRuntimeCall(std::string_view name) {
  const std::string_view base = withoutPerThreadSuffix(baseApiName(name));
  for (std::string_view noisy : kNoisyRuntime) {
    if (base == noisy) return false;
  }
  return true;
}

bool keepDriverCall(std::string_view name) {
  const std::string_view base = baseApiName(name);
  for (std::string_view prefix : kDriverPrefixes) {
    if (startsWith(base, prefix)) return true;
  }
  return startsWith(base, kStreamWaitEvent);
}

std::vector<ApiNames::Entry>& ApiNames::table(traces::ApiDomain domain) {
  return domain == traces::ApiDomain::Driver ? driver_ : runtime_;
}

const std::vector<ApiNames::Entry>& ApiNames::table(traces::ApiDomain domain) const {
  return domain == traces::ApiDomain::Driver ? driver_ : runtime_;
}

void ApiNames::set(traces::ApiDomain domain, uint32_t cbid, std::string_view name) {
  auto& t = table(domain);
  if (cbid >= t.size()) t.resize(cbid + 1);
  const std::string_view base = baseApiName(name);
  t[cbid].name = std::string(base);
  t[cbid].keep = domain == traces::ApiDomain::Driver ? keepDriverCall(base) : keepRuntimeCall(base);
}

void ApiNames::load(const CuptiApi& api) {
  if (api.getCallbackName == nullptr) return;
  // Ids above the ones these headers know come from a newer CUPTI: ask past them for a while.
  constexpr uint32_t kBeyond = 512;
  const struct {
    CUpti_CallbackDomain cupti;
    traces::ApiDomain ours;
    uint32_t known;
  } domains[] = {
      {CUPTI_CB_DOMAIN_RUNTIME_API, traces::ApiDomain::Runtime, CUPTI_RUNTIME_TRACE_CBID_SIZE},
      {CUPTI_CB_DOMAIN_DRIVER_API, traces::ApiDomain::Driver, CUPTI_DRIVER_TRACE_CBID_SIZE},
  };
  for (const auto& d : domains) {
    for (uint32_t cbid = 1; cbid < d.known + kBeyond; ++cbid) {
      const char* name = nullptr;
      if (api.getCallbackName(d.cupti, cbid, &name) == CUPTI_SUCCESS && name != nullptr) {
        set(d.ours, cbid, name);
      }
    }
  }
}

std::string_view ApiNames::name(traces::ApiDomain domain, uint32_t cbid) const {
  const auto& t = table(domain);
  return cbid < t.size() ? std::string_view(t[cbid].name) : std::string_view();
}

bool ApiNames::keep(traces::ApiDomain domain, uint32_t cbid) const {
  const auto& t = table(domain);
  return cbid >= t.size() || t[cbid].name.empty() || t[cbid].keep;
}

std::vector<uint32_t> ApiNames::unwanted(traces::ApiDomain domain) const {
  std::vector<uint32_t> ids;
  const auto& t = table(domain);
  for (uint32_t cbid = 0; cbid < t.size(); ++cbid) {
    if (!t[cbid].name.empty() && !t[cbid].keep) ids.push_back(cbid);
  }
  return ids;
}

}  // namespace bubblescope::agent
