#include "agent/nccl/comm_table.h"

namespace bubblescope::agent {
namespace {

constexpr uintptr_t kFree = 0;
constexpr uintptr_t kDestroyed = 1;

}  // namespace

uint32_t CommTable::slotOf(uintptr_t key) {
  // Communicators are heap objects: mix the bits above the allocation alignment.
  uint64_t x = key >> 4;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return static_cast<uint32_t>(x) & (kSlots - 1);
}

CommInfo* CommTable::find(const void* comm) {
  const auto key = reinterpret_cast<uintptr_t>(comm);
  if (key <= kDestroyed) return nullptr;
  for (uint32_t i = slotOf(key), n = 0; n < kSlots; i = (i + 1) & (kSlots - 1), ++n) {
    const uintptr_t k = slots_[i].key.load(std::memory_order_acquire);
    if (k == key) return &slots_[i];
    if (k == kFree) return nullptr;
  }
  return nullptr;
}

CommInfo* CommTable::insert(const void* comm, uint64_t hash, int32_t rank, int32_t size) {
  const auto key = reinterpret_cast<uintptr_t>(comm);
  if (key <= kDestroyed) return nullptr;
  std::lock_guard lock(mutex_);
  CommInfo* reuse = nullptr;
  for (uint32_t i = slotOf(key), n = 0; n < kSlots; i = (i + 1) & (kSlots - 1), ++n) {
    const uintptr_t k = slots_[i].key.load(std::memory_order_relaxed);
    if (k == key) {
      reuse = &slots_[i];  // NCCL reused a destroyed communicator's memory we did not see go
      break;
    }
    if (k == kDestroyed && reuse == nullptr) reuse = &slots_[i];
    if (k == kFree) {
      if (reuse == nullptr) reuse = &slots_[i];
      break;
    }
  }
  if (reuse == nullptr) return nullptr;
  // Hide the entry while it is rewritten, then publish it with its fields in place.
  reuse->key.store(kDestroyed, std::memory_order_release);
  reuse->hash.store(hash, std::memory_order_relaxed);
  reuse->rank.store(rank, std::memory_order_relaxed);
  reuse->size.store(size, std::memory_order_relaxed);
  reuse->splits.store(0, std::memory_order_relaxed);
  for (auto& s : reuse->seq) s.store(0, std::memory_order_relaxed);
  reuse->key.store(key, std::memory_order_release);
  return reuse;
}

void CommTable::erase(const void* comm) {
  std::lock_guard lock(mutex_);
  if (CommInfo* e = find(comm)) e->key.store(kDestroyed, std::memory_order_release);
}

CommTable& commTable() {
  static auto* table = new CommTable;  // never destroyed: NCCL calls may come during exit
  return *table;
}

}  // namespace bubblescope::agent
