#pragma once
// What one NCCL call says, defined once: every shape a call takes on its way (the agent's ring
// record and live history, the control reply, the writer's row, the model) derives from it and
// adds only where and when the call was. Plain data: the agent copies it on its hot path.
#include <cstdint>

#include "traces/model/nccl_op.h"

namespace bubblescope::traces {

enum class NcclSource : uint8_t { Hook = 0, Nvtx = 1, Import = 2 };

struct NcclCallFields {
  uint64_t comm = 0;   // communicator hash, 0 = unknown
  uint64_t count = 0;  // elements; a GroupEnd's: the calls of its group
  uint64_t bytes = 0;
  uint64_t seq = 0;   // its number among its communicator's calls of its class, 0 = unknown
  int32_t peer = -1;  // rank within the communicator: the peer, or the root of a rooted collective
  int32_t commRank = -1, commSize = -1;
  NcclOp op = NcclOp::Unknown;
  uint8_t dtype = 0;       // ncclDataType_t
  uint8_t groupDepth = 0;  // ncclGroupStart nesting at the call, 0 = none (or not kept: live)

  // The fields of a shape that derives from these, to copy them as one.
  NcclCallFields& fields() { return *this; }
  const NcclCallFields& fields() const { return *this; }
};

}  // namespace bubblescope::traces
