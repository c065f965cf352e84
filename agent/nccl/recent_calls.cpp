#include "agent/nccl/recent_calls.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <unordered_map>

namespace bubblescope::agent {
namespace {

using traces::NcclOp;

struct CountKey {
  uint64_t comm;
  int32_t peer;
  CallCount::Kind kind;
  bool operator==(const CountKey&) const = default;
};
struct CountKeyHash {
  size_t operator()(const CountKey& k) const {
    return std::hash<uint64_t>()(k.comm ^ (uint64_t{static_cast<uint32_t>(k.peer)} << 8) ^
                                 static_cast<uint64_t>(k.kind));
  }
};

struct History {
  std::timed_mutex mutex;
  RecentCall ring[kRecentCalls];
  // Which call (1, 2, ...) each slot holds, and when it returned: noteCallEnd writes these
  // without the lock.
  std::atomic<uint64_t> serial[kRecentCalls] = {};
  std::atomic<uint64_t> end[kRecentCalls] = {};
  std::atomic<uint64_t> bytes[kRecentCalls] = {};  // what the call's end said, 0 = as noted
  uint64_t calls = 0;                              // calls noted so far
  struct Count {
    uint64_t calls = 0;
    int32_t commRank = -1;
  };
  std::unordered_map<CountKey, Count, CountKeyHash> counts;
  std::unordered_map<uint64_t, std::pair<int32_t, int32_t>> members;  // comm -> (rank, size)
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
  const bool collective = kind == CallCount::Kind::Collective;
  call.seq = collective ? collectiveSeq : 0;
  if (call.comm != 0) {
    if (call.commRank < 0) {
      if (const auto m = h.members.find(call.comm); m != h.members.end()) {
        call.commRank = m->second.first;
        call.commSize = m->second.second;
      }
    }
    History::Count& n = h.counts[CountKey{call.comm, collective ? -1 : call.peer, kind}];
    ++n.calls;
    n.commRank = call.commRank;
    if (!collective || collectiveSeq == 0) call.seq = n.calls;
  }
  const uint64_t serial = ++h.calls;
  const size_t slot = (serial - 1) % kRecentCalls;
  h.ring[slot] = call;
  h.end[slot].store(0, std::memory_order_relaxed);
  h.bytes[slot].store(0, std::memory_order_relaxed);
  h.serial[slot].store(serial, std::memory_order_release);
  return serial;
}

void noteCallEnd(uint64_t handle, uint64_t endTicks, uint64_t bytes) {
  // Without the lock, which halves the history's cost per call. The slot can be taken by a newer
  // call between the check and the store only if kRecentCalls calls start meanwhile; that call
  // would then show an end it has not reached, which no verdict reads (calls pair by counts).
  History& h = history();
  const size_t slot = (handle - 1) % kRecentCalls;
  if (h.serial[slot].load(std::memory_order_acquire) == handle) {
    if (bytes != 0) h.bytes[slot].store(bytes, std::memory_order_relaxed);
    h.end[slot].store(endTicks, std::memory_order_relaxed);
  }
}

void noteMembership(uint64_t comm, int32_t rank, int32_t size) {
  if (comm == 0 || rank < 0) return;
  History& h = history();
  std::lock_guard lock(h.mutex);
  h.members[comm] = {rank, size};
}

bool copyRecentCalls(std::vector<RecentCall>& calls, std::vector<CallCount>& counts) {
  History& h = history();
  std::unique_lock lock(h.mutex, std::defer_lock);
  if (!lock.try_lock_for(std::chrono::milliseconds(20))) return false;
  calls.clear();
  counts.clear();
  const uint64_t first = h.calls > kRecentCalls ? h.calls - kRecentCalls + 1 : 1;
  for (uint64_t serial = first; serial <= h.calls; ++serial) {
    const size_t slot = (serial - 1) % kRecentCalls;
    calls.push_back(h.ring[slot]);
    calls.back().endTicks = h.end[slot].load(std::memory_order_relaxed);
    if (const uint64_t b = h.bytes[slot].load(std::memory_order_relaxed); b != 0) {
      calls.back().bytes = b;
    }
  }
  for (const auto& [key, n] : h.counts) {
    CallCount c;
    c.kind = key.kind;
    c.comm = key.comm;
    c.peer = key.peer;
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
