#include "agent/nvtx/nvtx_payload_ext.h"

#include <atomic>

#include "agent/nccl/nccl_nvtx.h"
#include "agent/nvtx/nvtx_handlers.h"
#include "agent/nvtx/nvtx_registry.h"

namespace bubblescope::agent {
namespace {

constexpr uint64_t kSchemaIdField = uint64_t{1} << 8;  // NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID
constexpr uint64_t kEnumIdField = uint64_t{1} << 5;    // NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID
std::atomic<uint64_t> g_nextSchemaId{NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START};

bool isNccl(nvtxDomainHandle_t domain) {
  const auto* d = reinterpret_cast<const NvtxDomain*>(domain);
  return d != nullptr && d->nccl;
}

uint64_t NVTX_API schemaRegister(nvtxDomainHandle_t, const nvtxPayloadSchemaAttr_t* attr) {
  if (attr != nullptr && (attr->fieldMask & kSchemaIdField) != 0) return attr->schemaId;
  return g_nextSchemaId.fetch_add(1, std::memory_order_relaxed);
}

uint64_t NVTX_API enumRegister(nvtxDomainHandle_t, const nvtxPayloadEnumAttr_t* attr) {
  if (attr != nullptr && (attr->fieldMask & kEnumIdField) != 0) return attr->schemaId;
  return g_nextSchemaId.fetch_add(1, std::memory_order_relaxed);
}

int NVTX_API rangePushPayload(nvtxDomainHandle_t domain, const nvtxPayloadData_t* data,
                              size_t count) {
  if (isNccl(domain)) ncclNvtxPushPayload(data, count);
  return pushRangeForExtension(domain);
}

int NVTX_API rangePopPayload(nvtxDomainHandle_t domain, const nvtxPayloadData_t* data,
                             size_t count) {
  if (isNccl(domain)) ncclNvtxPop(data, count);
  return popRangeForExtension(domain);
}

uint8_t NVTX_API domainIsEnabled(nvtxDomainHandle_t) {
  return 1;
}

}  // namespace

bool installPayloadHandlers(nvtxExtModuleInfo_t* module) {
  if (module == nullptr || module->segmentsCount < 1 || module->segments == nullptr ||
      module->moduleId != NVTX_EXT_PAYLOAD_MODULEID) {
    return false;
  }
  nvtxExtModuleSegment_t& segment = module->segments[0];
  auto install = [&](size_t id, auto fn) {
    if (segment.functionSlots != nullptr && id < segment.slotCount) {
      segment.functionSlots[id] = reinterpret_cast<intptr_t>(fn);
    }
  };
  install(NVTX3EXT_CBID_nvtxPayloadSchemaRegister, &schemaRegister);
  install(NVTX3EXT_CBID_nvtxPayloadEnumRegister, &enumRegister);
  install(NVTX3EXT_CBID_nvtxRangePushPayload, &rangePushPayload);
  install(NVTX3EXT_CBID_nvtxRangePopPayload, &rangePopPayload);
  install(NVTX3EXT_CBID_nvtxDomainIsEnabled, &domainIsEnabled);
  return true;
}

}  // namespace bubblescope::agent
