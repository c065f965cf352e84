#pragma once
// NCCL's operations, one row each: the model's key, NCCL's function name, the name a report gives
// it, and what kind of call it is. Everything that names an op or asks what kind it is reads here.
//
// To add an op: a value at the end of NcclOp (and in docs/trace-format.md), its row at the end of
// kNcclOps (the rows follow the enum), its wrapper in agent/nccl/nccl_hooks.cpp and its symbol in
// agent/agent.map.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace bubblescope::traces {

// Stored in nccl_calls.op: the values are the trace format.
enum class NcclOp : uint8_t {
  Unknown = 0,
  Send,
  Recv,
  AllReduce,
  AllGather,
  ReduceScatter,
  Broadcast,
  Reduce,
  AllToAll,
  GroupStart,
  GroupEnd,
  CommInitRank,
  CommSplit,
  CommDestroy,
};

struct NcclOpInfo {
  NcclOp op;
  const char* api;    // NCCL's function, "ncclAllReduce"; "" for Unknown
  const char* human;  // as a report names it, "all-reduce"
  bool pointToPoint;  // one peer: ncclSend, ncclRecv
  bool collective;    // every member of the communicator joins: all-reduce, broadcast, ...
  bool rooted;        // the peer field holds the root: ncclBroadcast, ncclReduce
};

inline constexpr NcclOpInfo kNcclOps[] = {
    {NcclOp::Unknown, "", "unknown", false, false, false},
    {NcclOp::Send, "ncclSend", "send", true, false, false},
    {NcclOp::Recv, "ncclRecv", "recv", true, false, false},
    {NcclOp::AllReduce, "ncclAllReduce", "all-reduce", false, true, false},
    {NcclOp::AllGather, "ncclAllGather", "all-gather", false, true, false},
    {NcclOp::ReduceScatter, "ncclReduceScatter", "reduce-scatter", false, true, false},
    {NcclOp::Broadcast, "ncclBroadcast", "broadcast", false, true, true},
    {NcclOp::Reduce, "ncclReduce", "reduce", false, true, true},
    {NcclOp::AllToAll, "ncclAlltoAll", "all-to-all", false, true, false},
    {NcclOp::GroupStart, "ncclGroupStart", "group start", false, false, false},
    {NcclOp::GroupEnd, "ncclGroupEnd", "group end", false, false, false},
    {NcclOp::CommInitRank, "ncclCommInitRank", "communicator init", false, false, false},
    {NcclOp::CommSplit, "ncclCommSplit", "communicator split", false, false, false},
    {NcclOp::CommDestroy, "ncclCommDestroy", "communicator destroy", false, false, false},
};

// NCCL functions recorded as another function's op. Not ncclBcast: NCCL implements it with
// ncclBroadcast, whose range nests inside.
struct NcclApiAlias {
  const char* api;
  NcclOp op;
};
inline constexpr NcclApiAlias kNcclApiAliases[] = {
    {"ncclCommInitRankConfig", NcclOp::CommInitRank},
    {"ncclCommInitRankScalable", NcclOp::CommInitRank},
    {"ncclCommInitAll", NcclOp::CommInitRank},
    {"ncclCommAbort", NcclOp::CommDestroy},
};

constexpr bool ncclRowsFollowTheEnum() {
  for (size_t i = 0; i < std::size(kNcclOps); ++i) {
    if (static_cast<size_t>(kNcclOps[i].op) != i) return false;
  }
  return true;
}
static_assert(ncclRowsFollowTheEnum(), "kNcclOps: one row per NcclOp, in the enum's order");

inline constexpr NcclOp kLastNcclOp = kNcclOps[std::size(kNcclOps) - 1].op;

// The op's row; Unknown's for a value past the table.
constexpr const NcclOpInfo& ncclOpInfo(NcclOp op) {
  const size_t i = static_cast<size_t>(op);
  return i < std::size(kNcclOps) ? kNcclOps[i] : kNcclOps[0];
}

constexpr bool isPointToPoint(NcclOp op) {
  return ncclOpInfo(op).pointToPoint;
}
constexpr bool isCollective(NcclOp op) {
  return ncclOpInfo(op).collective;
}
// Sends, receives and collectives: the calls that put data on a kernel (not a group's brackets,
// not a communicator's set-up).
constexpr bool movesData(NcclOp op) {
  return isPointToPoint(op) || isCollective(op);
}
// Whether the call's peer field names someone: its peer, or the root of a rooted collective.
constexpr bool carriesPeer(NcclOp op) {
  return isPointToPoint(op) || ncclOpInfo(op).rooted;
}

// The op of an NCCL function's exact name ("ncclSend", "ncclCommAbort"), Unknown for any other.
constexpr NcclOp ncclOpOfApiName(std::string_view name) {
  if (name.empty()) return NcclOp::Unknown;
  for (const NcclOpInfo& row : kNcclOps) {
    if (name == row.api) return row.op;
  }
  for (const NcclApiAlias& alias : kNcclApiAliases) {
    if (name == alias.api) return alias.op;
  }
  return NcclOp::Unknown;
}

}  // namespace bubblescope::traces
