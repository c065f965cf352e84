#pragma once
// NCCL calls as records: what the interposed API (nccl_hooks.cpp) and NCCL's own NVTX ranges
// (nccl_nvtx.cpp) put in the thread's ring, the per-thread state both share (group nesting, the
// ids that tie a call to its kernels), and the decoders that write nccl_calls rows.
//
// Ids (nccl_calls.id, pushed to CUPTI as the external correlation id) are laid out in
// traces/format/nccl_ids.h: a grouped call's id >> 16 equals the id >> 16 of the GroupEnd that
// launched its work, which is how a reader ties the group's kernel to every call of the group.
#include <cstdint>

#include "agent/core/producer.h"
#include "traces/format/nccl_ids.h"
#include "traces/model/nccl_call.h"

namespace bubblescope::agent {

inline constexpr uint64_t kGroupIdBit = traces::kNcclGroupIdBit;
inline constexpr uint64_t kGroupStartIndex = traces::kNcclGroupStartIndex;
inline constexpr uint8_t kUnknownDtype = 255;  // NVTX payloads carry bytes, not the type

// Written by the hook when a call returns (source Hook). Ticks.
struct NcclCallPayload : traces::NcclCallFields {
  uint64_t id;
  uint64_t start, end;
  uint64_t stream;  // cudaStream_t
};
static_assert(sizeof(NcclCallPayload) == 80, "a ring record of 88 bytes with its header");

// NCCL's NVTX range as it popped: the op (from the range's name) and the payload bytes as NCCL
// laid them out (nvtx_payload_schemas.h); the writer reads the fields.
struct NcclNvtxPayload {
  uint64_t id;
  uint64_t start, end;
  uint64_t raw[6];  // the payload struct, up to 48 bytes
  uint32_t rawSize;
  uint32_t groupCount;  // GroupEnd: calls of the group
  uint8_t op;
  uint8_t groupDepth;
  uint8_t reserved[6];
};

struct NcclRecordTypes {
  RecordType call = 0, nvtx = 0;
};
extern NcclRecordTypes g_ncclTypes;
// Start-up: the record types and writer hooks.
void registerNcclRecords();

// State of the calling thread, shared by both routes.
struct NcclThread {
  uint32_t inHook = 0;      // inside an interposed call: its NVTX range is the same call
  uint32_t groupDepth = 0;  // ncclGroupStart nesting
  uint64_t groupBlock = 0;  // id block of the open outermost group, 0 = none
  uint32_t groupNext = 0;   // ids handed out in the block
  uint64_t tid = 0;         // the OS thread id, once asked
};
NcclThread& ncclThread();
// The calling thread's OS id, asked of the kernel once per thread.
uint64_t osThreadId(NcclThread& t);

// An id for a call that is not a group boundary (in the open group's block, if any).
uint64_t nextCallId(NcclThread& t);
// ncclGroupStart: its id, and the group is open (depth + 1).
uint64_t openGroup(NcclThread& t);
// ncclGroupEnd, before the call: its id (the block for the outermost group). closeGroup after.
uint64_t groupEndId(NcclThread& t);
void closeGroup(NcclThread& t);

// Bytes of one element of an ncclDataType_t (0 for an unknown type).
uint32_t ncclTypeSize(int dtype);
// The sequence class of an op, or -1 for ops that take no sequence number.
int seqClassOf(traces::NcclOp op);

}  // namespace bubblescope::agent
