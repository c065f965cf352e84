#pragma once
// The second route to NCCL calls: NCCL wraps every API call in an NVTX push/pop range of domain
// "NCCL", named by a registered string (__func__) and carrying a payload (nvtx_payload_schemas.h:
// communicator hash, bytes, peer or root). The NVTX handlers pass the ranges of that domain here;
// each becomes an nccl_calls row with source Nvtx, so NCCL linked statically (or called past the
// hook) is still seen.
//
// No double counting: a range opened while the calling thread is inside the agent's own NCCL
// wrapper is that very call, already recorded by the hook, and is skipped here.
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtPayload.h>

#include <cstddef>

#include "traces/model/nccl_op.h"

namespace bubblescope::agent {

// Hot path, NCCL domain only: a range opens (the op its registered name says, Unknown for any
// other name, and its attributes, whose payload is read now) or closes (with the payload
// nvtxRangePopPayload gives, if any).
void ncclNvtxPush(traces::NcclOp op, const nvtxEventAttributes_t* attributes);
void ncclNvtxPushPayload(const nvtxPayloadData_t* data, size_t count);
void ncclNvtxPop(const nvtxPayloadData_t* data, size_t count);

}  // namespace bubblescope::agent
