#pragma once
// How the agent numbers NCCL calls (nccl_calls.id, pushed to CUPTI as the external correlation
// id), shared by the agent that assigns the ids and the reader that ties a group's kernel to
// every call of its group. See docs/trace-format.md, `correlations`.
//
// A call outside a group gets the next number of a process-wide counter (below 2^63). The
// outermost ncclGroupStart opens a block B = 2^63 | (n << 16): the ncclGroupEnd that closes it
// (and launches the group's kernels) has id B, the calls inside B+1, B+2, ..., the
// ncclGroupStart itself B | 0xFFFF.
#include <cstdint>

namespace bubblescope::traces {

inline constexpr uint64_t kNcclGroupIdBit = uint64_t{1} << 63;
inline constexpr int kNcclGroupBlockShift = 16;
inline constexpr uint64_t kNcclGroupStartIndex = 0xFFFF;

// The id of the GroupEnd that closes a group: its kernels carry it as their external id.
inline bool isNcclGroupEndId(uint64_t id) {
  return (id & kNcclGroupIdBit) != 0 && (id & kNcclGroupStartIndex) == 0;
}
// A call inside a group (not the group's own GroupStart or GroupEnd).
inline bool isNcclGroupMemberId(uint64_t id) {
  const uint64_t index = id & kNcclGroupStartIndex;
  return (id & kNcclGroupIdBit) != 0 && index != 0 && index != kNcclGroupStartIndex;
}
// The block of a grouped id: equal for a GroupEnd and every call of its group.
inline uint64_t ncclGroupBlock(uint64_t id) {
  return id >> kNcclGroupBlockShift;
}

}  // namespace bubblescope::traces
