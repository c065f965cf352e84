#pragma once
// What NVTX handles point to. The agent is the NVTX tool, so it chooses the handle values:
// a domain handle or a registered-string handle is a pointer to one of these, immutable once
// returned and never freed, so the hot path stores the pointer and the writer reads the text.
#include <cstdint>
#include <string>
#include <string_view>

#include "traces/model/nccl_op.h"

namespace bubblescope::agent {

struct NvtxDomain {
  std::string name;
  bool control = false;  // the "bubblescope" domain: its marks start and stop capture
  bool nccl = false;     // NCCL's own domain: its ranges are NCCL calls (agent/nccl/nccl_nvtx.h)
  const NvtxDomain* next = nullptr;
};

struct NvtxString {
  std::string text;
  const NvtxDomain* domain = nullptr;
  int64_t step = -1;  // N if the text is "step N"
  traces::NcclOp ncclOp = traces::NcclOp::Unknown;  // if the text names an NCCL function
};

struct NvtxCategoryName {
  const NvtxDomain* domain = nullptr;
  uint32_t category = 0;
  std::string name;
  const NvtxCategoryName* next = nullptr;
};

// The domain whose marks control capture ("start", "start steps=2", "stop").
inline constexpr std::string_view kControlDomainName = "bubblescope";
inline constexpr std::string_view kNcclDomainName = "NCCL";

// Cold paths (they allocate). Creating a domain twice by name returns the same handle.
const NvtxDomain* createDomain(std::string_view name);
const NvtxString* registerString(const NvtxDomain* domain, std::string_view text);
void nameCategory(const NvtxDomain* domain, uint32_t category, std::string_view name);
const NvtxCategoryName* newestCategoryName();

}  // namespace bubblescope::agent
