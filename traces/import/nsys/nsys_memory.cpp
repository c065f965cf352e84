// Device memory from an Nsight Systems export recorded with --cuda-memory-usage=true: each row of
// CUDA_GPU_MEMORY_USAGE_EVENTS is one allocation or release of device memory (cudaMalloc,
// cudaFree, and the driver's equivalents), so a process's running sum per device is what it has
// reserved from the device since the capture began. nsys records no tensor-level (allocated)
// amount: the caching allocator's cache is inside that reserve.
#include <map>

#include "traces/format/field_range.h"
#include "traces/import/nsys/nsys_reader.h"
#include "traces/sqlite/integer_columns.h"

namespace bubblescope::traces::import {

void NsysReader::readMemory() {
  constexpr const char* kTable = "CUDA_GPU_MEMORY_USAGE_EVENTS";
  if (!schema_.has(kTable, "globalPid") || !schema_.has(kTable, "memoryOperationType") ||
      !schema_.has(kTable, "bytes")) {
    return;
  }
  // ENUM_CUDA_MEM_KIND and ENUM_CUDA_DEV_MEM_EVENT_OPER, with the ids of the exports we know
  // when the tables are missing.
  const int64_t device = schema_.enumId("ENUM_CUDA_MEM_KIND", "CUDA_MEMOPR_MEMORY_KIND_DEVICE", 2);
  const int64_t deviceStatic =
      schema_.enumId("ENUM_CUDA_MEM_KIND", "CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC", 5);
  const int64_t allocation =
      schema_.enumId("ENUM_CUDA_DEV_MEM_EVENT_OPER", "CUDA_DEV_MEM_EVENT_OPR_ALLOCATION", 0);
  const int64_t release =
      schema_.enumId("ENUM_CUDA_DEV_MEM_EVENT_OPER", "CUDA_DEV_MEM_EVENT_OPR_DEALLOCATION", 1);
  const std::string kind = schema_.column(kTable, "memKind", std::to_string(device));
  auto st = db_.prepare("SELECT start, globalPid, deviceId, bytes, memoryOperationType FROM " +
                        std::string(kTable) + " WHERE " + kind + " IN (" + std::to_string(device) +
                        ", " + std::to_string(deviceStatic) + ") ORDER BY start");
  std::map<std::pair<int64_t, uint32_t>, int64_t> reserved;  // (process, device) -> bytes
  while (st.step()) {
    sqlite::requireIntegers(st, file_, kTable);
    Rank* r = rankOf(st.int64(1) >> 24);
    if (!r) continue;  // a process without GPU work is not a rank
    const auto dev = fieldInRange<uint32_t>(file_, std::string(kTable) + ".deviceId", st.int64(2));
    const int64_t bytes =
        fieldInRange<int64_t>(file_, std::string(kTable) + ".bytes", st.int64(3), 0, INT64_MAX);
    const int64_t op = st.int64(4);
    if (op != allocation && op != release) continue;
    int64_t& sum = reserved[{r->key, dev}];
    // A release of memory allocated before the capture began would go below zero: hold at zero.
    sum = op == allocation ? sum + bytes : std::max<int64_t>(0, sum - bytes);
    r->builder.addMemoryUsage(st.int64(0), dev, kBytesUnknown, sum);
    if (!r->builder.hasDevice(dev)) r->builder.addDevice(dev, "");
    note(st.int64(0));
  }
}

}  // namespace bubblescope::traces::import
