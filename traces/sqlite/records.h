#pragma once
// Rows as the writer takes them: raw ids as recorded (OS thread ids, CUDA device and stream ids,
// string ids from TraceWriter::intern). The reader turns them into the columnar model.
#include <cstdint>

#include "traces/model/events.h"
#include "traces/model/nccl_call.h"
#include "traces/model/string_table.h"
#include "traces/model/time.h"

namespace bubblescope::traces {

struct RangeRecord {
  TimeNs start = 0, end = 0;
  uint64_t tid = 0;
  uint64_t endTid = 0;  // thread that ended a start/end range (= tid for push/pop)
  StringId domain = 0, name = 0;
  uint16_t depth = 0;
  RangeKind kind = RangeKind::PushPop;
  uint32_t category = 0;
  uint32_t color = 0;  // ARGB, 0 = none
};

// A range opened and not yet closed when the batch was committed (schema 2).
struct OpenRangeRecord {
  TimeNs start = 0;
  uint64_t tid = 0;
  StringId domain = 0, name = 0;
  uint16_t depth = 0;
  RangeKind kind = RangeKind::PushPop;
};

struct MarkRecord {
  TimeNs ts = 0;
  uint64_t tid = 0;
  StringId domain = 0, name = 0;
};

struct KernelRecord {
  TimeNs start = 0, end = 0;
  uint32_t device = 0;
  uint64_t stream = 0;
  uint32_t correlation = 0;
  StringId name = 0;
  uint32_t grid[3] = {0, 0, 0};
  uint32_t block[3] = {0, 0, 0};
  uint32_t registers = 0;
  uint32_t sharedStatic = 0, sharedDynamic = 0;
};

struct MemcpyRecord {
  TimeNs start = 0, end = 0;
  uint32_t device = 0;
  uint64_t stream = 0;
  uint32_t correlation = 0;
  uint64_t bytes = 0;
  MemcpyKind copyKind = MemcpyKind::Unknown;
  uint8_t srcKind = 0, dstKind = 0;  // CUpti_ActivityMemoryKind
};

struct MemsetRecord {
  TimeNs start = 0, end = 0;
  uint32_t device = 0;
  uint64_t stream = 0;
  uint32_t correlation = 0;
  uint64_t bytes = 0;
  uint32_t value = 0;
};

struct SyncRecord {
  TimeNs start = 0, end = 0;
  uint32_t device = 0;
  uint64_t stream = 0;  // UINT32_MAX in CUPTI when context-wide
  uint32_t correlation = 0;
  SyncKind syncKind = SyncKind::Unknown;
};

enum class ApiDomain : uint8_t { Runtime = 1, Driver = 2 };

struct ApiCallRecord {
  TimeNs start = 0, end = 0;
  uint64_t tid = 0;
  StringId name = 0;
  uint32_t correlation = 0;
  uint32_t cbid = 0;
  ApiDomain domain = ApiDomain::Runtime;
  int32_t returnValue = 0;
};

struct NcclCallRecord : NcclCallFields {
  uint64_t id = 0;
  TimeNs start = 0, end = 0;
  uint64_t tid = 0;
  uint64_t stream = 0;  // the cudaStream_t passed in
  NcclSource source = NcclSource::Hook;
};

// The job's device memory after a change (schema 3); -1 (kBytesUnknown) for what the source
// does not record.
struct MemoryUsageRecord {
  TimeNs ts = 0;
  uint32_t device = 0;
  int64_t allocated = kBytesUnknown;
  int64_t reserved = kBytesUnknown;
};

struct CorrelationRecord {
  uint32_t correlation = 0;
  ExternalKind externalKind = ExternalKind::Unknown;
  uint64_t externalId = 0;
};

}  // namespace bubblescope::traces
