#pragma once
// What the agent knows of each live NCCL communicator, by its ncclComm_t: the hash every rank
// shares, this rank and the size, and per-communicator sequence counters. Written when a
// communicator is made or destroyed (a lock, rare), read on every NCCL call without one.
#include <atomic>
#include <cstdint>
#include <mutex>

namespace bubblescope::agent {

// Sequence classes: collectives share one counter (every rank calls them in the same order, so
// the n-th collective of a communicator is the same operation on every rank); sends and receives
// count separately.
enum class SeqClass : uint8_t { Collective = 0, Send = 1, Recv = 2 };
inline constexpr int kSeqClasses = 3;

struct CommInfo {
  std::atomic<uintptr_t> key{0};  // the ncclComm_t; 0 free, 1 a destroyed communicator's slot
  std::atomic<uint64_t> hash{0};
  std::atomic<int32_t> rank{-1}, size{-1};  // -1 until known (a split asks NCCL later)
  std::atomic<int32_t> splits{0};           // ncclCommSplit calls on this communicator
  std::atomic<uint64_t> seq[kSeqClasses] = {};

  // The next sequence number of this class, from 1.
  uint64_t next(SeqClass c) {
    return seq[static_cast<int>(c)].fetch_add(1, std::memory_order_relaxed) + 1;
  }
};

class CommTable {
 public:
  static constexpr uint32_t kSlots = 4096;  // power of two; live communicators beyond ~3000 are
                                            // not tracked (their calls record hash 0)

  // Any thread, lock-free: the communicator's entry, or nullptr if unknown.
  CommInfo* find(const void* comm);
  // A new communicator (replaces an entry of the same pointer). nullptr when the table is full.
  CommInfo* insert(const void* comm, uint64_t hash, int32_t rank, int32_t size);
  void erase(const void* comm);

 private:
  static uint32_t slotOf(uintptr_t key);

  std::mutex mutex_;  // insert and erase
  CommInfo slots_[kSlots];
};

CommTable& commTable();

}  // namespace bubblescope::agent
