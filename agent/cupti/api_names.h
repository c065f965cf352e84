#pragma once
// Names of CUDA runtime and driver API calls by CUPTI callback id, and which calls the agent
// records. Runtime calls are recorded except the noisy ones Kineto and wprof filter (device
// queries, error polls, capture checks, event and stream polling); driver calls only where they
// start or wait for GPU work (launches, copies, sets, synchronisations): libraries such as NCCL
// and Triton launch through the driver, and the runtime's own driver calls are not wanted.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "traces/sqlite/records.h"

namespace bubblescope::agent {

struct CuptiApi;

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel" (the version suffix CUPTI's names carry).
std::string_view baseApiName(std::string_view name);
// Whether a call of this (base) name is recorded.
bool keepRuntimeCall(std::string_view name);
bool keepDriverCall(std::string_view name);

class ApiNames {
 public:
  // Every runtime and driver callback id CUPTI can name (cuptiGetCallbackName).
  void load(const CuptiApi& api);
  // Tests and callers without CUPTI: name one id.
  void set(traces::ApiDomain domain, uint32_t cbid, std::string_view name);

  // The base name, or "" when unknown.
  std::string_view name(traces::ApiDomain domain, uint32_t cbid) const;
  // Whether records of this id are written (unknown ids are kept).
  bool keep(traces::ApiDomain domain, uint32_t cbid) const;
  // Ids CUPTI may stop tracing at the source (cuptiActivityEnable*Api(cbid, 0)).
  std::vector<uint32_t> unwanted(traces::ApiDomain domain) const;

 private:
  struct Entry {
    std::string name;
    bool keep = true;
  };
  std::vector<Entry>& table(traces::ApiDomain domain);
  const std::vector<Entry>& table(traces::ApiDomain domain) const;

  std::vector<Entry> runtime_, driver_;
};

}  // namespace bubblescope::agent
