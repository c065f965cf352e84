#include "agent/nccl/recent_calls.h"

#include <chrono>
#include <map>
#include <mutex>
#include <tuple>

namespace bubblescope::agent {
namespace {

using traces::NcclOp;

struct History {
  std::timed_mutex mutex;
  RecentCall ring[kRecentCalls];
  uint64_t serial[kRecentCalls] = {};  // which call (1, 2, ...) each slot holds
  uint64_t calls = 0;                  // calls noted so far
  struct Count {
    uint64_t calls = 0;
    int32_t commRank = -1;
  };
  std::map<std::tuple<uint64_t, int32_t, CallCount::Kind>, Count> counts;
};

// Leaked: job threads may still call NCCL while exit() destroys statics.
History* g_history = new History;
History& history() {
  return *g_history;
}

CallCount::Kind kindOf(NcclOp op) {
  return op == NcclOp::Send   ? CallCount::Kind::Send
         : op == NcclOp::Recv ? CallCount::Kind::Recv
                              : CallCount::Kind::Collective;
}

}  // namespace

uint64_t noteCallStart(RecentCall call, uint64_t collectiveSeq) {
  History& h = history();
  std::lock_guard lock(h.mutex);
  const CallCount::Kind kind = kindOf(call.op);
  if (call.comm != 0) {
    History::Count& n =
        h.counts[{call.comm, kind == CallCount::Kind::Collective ? -1 : call.peer, kind}];
    ++n.calls;
    n.commRank = call.commRank;
    call.seq = kind == CallCount::Kind::Collective ? collectiveSeq : n.calls;
  } else {
    call.seq = kind == CallCount::Kind::Collective ? collectiveSeq : 0;
  }
  const uint64_t serial = ++h.calls;
  const uint32_t slot = static_cast<uint32_t>((serial - 1) % kRecentCalls);
  h.ring[slot] = call;
  h.serial[slot] = serial;
  return serial;
}

void noteCallEnd(uint64_t handle, uint64_t endTicks) {
  History& h = history();
  std::lock_guard lock(h.mutex);
  const uint32_t slot = static_cast<uint32_t>((handle - 1) % kRecentCalls);
  if (h.serial[slot] == handle) h.ring[slot].endTicks = endTicks;  // not overwritten since
}

bool copyRecentCalls(std::vector<RecentCall>& calls, std::vector<CallCount>& counts) {
  History& h = history();
  std::unique_lock lock(h.mutex, std::defer_lock);
  if (!lock.try_lock_for(std::chrono::milliseconds(20))) return false;
  calls.clear();
  counts.clear();
  const uint64_t first = h.calls > kRecentCalls ? h.calls - kRecentCalls + 1 : 1;
  for (uint64_t serial = first; serial <= h.calls; ++serial) {
    calls.push_back(h.ring[(serial - 1) % kRecentCalls]);
  }
  for (const auto& [key, n] : h.counts) {
    CallCount c;
    std::tie(c.comm, c.peer, c.kind) = key;
    c.calls = n.calls;
    c.commRank = n.commRank;
    counts.push_back(c);
  }
  return true;
}

void forgetRecentCalls() {
  // Another thread of the parent may have held the lock at fork(); in the child it never lets
  // go. A fresh history, the old one leaked.
  g_history = new History;
}

}  // namespace bubblescope::agent
