#pragma once
// The NCCL calls a live `hang` query asks for: the process's last kRecentCalls communication
// calls, and how many calls each (communicator, peer, direction) and each communicator's
// collectives have made so far. Kept always, dormant or recording: an NCCL call costs
// microseconds, this a lock and a few stores.
//
// Why counts as well as calls: the ranks' histories are cut at different places, so the n-th
// send of one rank cannot be paired with a receive by position in two short lists. With the
// counts it can: a send to rank B is answered once B's receive count from us reaches its number.
#include <cstdint>
#include <vector>

#include "traces/model/nccl_call.h"

namespace bubblescope::agent {

inline constexpr uint32_t kRecentCalls = 64;

// seq: collectives the n-th of their communicator, send/recv the n-th to/from that peer.
struct RecentCall : traces::NcclCallFields {
  uint64_t startTicks = 0;
  uint64_t endTicks = 0;  // 0: the call has not returned
  uint64_t tid = 0;
};

// Calls made so far: per communicator and peer for sends (kind Send) and receives (Recv), per
// communicator for collectives (kind Collective, peer -1).
struct CallCount {
  enum class Kind : uint8_t { Collective, Send, Recv } kind = Kind::Collective;
  uint64_t comm = 0;
  int32_t peer = -1;
  uint64_t calls = 0;
  int32_t commRank = -1;  // this process's rank in the communicator, as its last call knew it
};

// Job threads, around the real call. noteCallStart numbers the call (RecentCall::seq) and
// returns a handle for noteCallEnd. `collectiveSeq`: the communicator's own collective number,
// 0 to count them here (NCCL's own NVTX ranges carry none). A call that does not know its rank
// in the communicator (commRank -1) takes what noteMembership learnt.
uint64_t noteCallStart(RecentCall call, uint64_t collectiveSeq);
void noteCallEnd(uint64_t handle, uint64_t endTicks, uint64_t bytes = 0);  // bytes: 0 = as noted
// A communicator's rank and size for this process, as NCCL's CommInitRank/CommSplit ranges
// give them (the interposed API knows them from its own table).
void noteMembership(uint64_t comm, int32_t rank, int32_t size);

// The control thread: copies, oldest call first. Never blocks for long: a lock it cannot get in
// a few milliseconds (a thread stopped inside noteCall*) gives false.
bool copyRecentCalls(std::vector<RecentCall>& calls, std::vector<CallCount>& counts);

// A forked child starts with no history.
void forgetRecentCalls();

}  // namespace bubblescope::agent
