#pragma once
// Communicator identity, computed as NCCL 2.28 computes its own commHash, so that every rank of
// a communicator records the same value and the hook's rows match NCCL's NVTX payloads and logs:
// a communicator made by ncclCommInitRank hashes its ncclUniqueId; one made by ncclCommSplit
// hashes (parent hash, the parent's split count, color). Pure.
#include <cstddef>
#include <cstdint>

namespace bubblescope::agent {

// NCCL's eatHash/digestHash (src/include/utils.h): two 64-bit accumulators, input in 8-byte
// chunks; where the input is split between calls matters.
struct NcclHasher {
  uint64_t acc[2] = {1, 1};
  void eat(const void* bytes, size_t size);
  uint64_t digest() const;
};

// ncclCommInitRank: the hash of the 128-byte unique id.
uint64_t commHashOfUniqueId(const void* uniqueId, size_t size);
// ncclCommSplit: `splitCount` counts the splits of the parent so far, this one included.
uint64_t commHashOfSplit(uint64_t parentHash, int splitCount, int color);

}  // namespace bubblescope::agent
