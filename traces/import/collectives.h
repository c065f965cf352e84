#pragma once
// Names of collectives and data types as PyTorch and NCCL write them, mapped to the model's
// NcclOp and to ncclDataType_t (Kineto's record_param_comms, ProcessGroupNCCL's "nccl:*" range
// titles, NCCL's own NVTX range names).
#include <cstdint>
#include <optional>
#include <string_view>

#include "traces/model/events.h"

namespace bubblescope::traces::import {

// "allreduce", "_allgather_base", "all_to_all", "send", ... (record_param_comms "Collective
// name", c10d names). nullopt for names that are not an NCCL call ("wait", "coalesced").
std::optional<NcclOp> collectiveOp(std::string_view name);

// NCCL's API names: "ncclSend", "ncclAllReduce", "ncclGroupStart", ...
std::optional<NcclOp> ncclApiOp(std::string_view name);

// A ProcessGroupNCCL range title: "nccl:all_reduce", "nccl:send 0->1", "nccl:recv 1<-0".
struct NcclTitle {
  NcclOp op = NcclOp::Unknown;
  int peer = -1;  // the other rank of a send/recv
};
std::optional<NcclTitle> parseNcclTitle(std::string_view title);

// ncclDataType_t of a PyTorch dtype name ("Float", "BFloat16", "Long", ...) and its size in bytes.
struct DataType {
  uint8_t nccl = 0;
  uint8_t bytes = 0;
};
std::optional<DataType> torchDataType(std::string_view name);

// FNV-1a: a stable 64-bit id for a communicator from its process-group name.
uint64_t stableHash(std::string_view s);

}  // namespace bubblescope::traces::import
