#include "agent/cupti/buffer_pool.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

namespace bubblescope::agent {

bool BufferPool::init(size_t bytes, uint32_t count, uint32_t resident) {
  if (base_ != nullptr || count == 0) return false;
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  bytes = (bytes + page - 1) / page * page;
  void* mem = mmap(nullptr, bytes * count, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mem == MAP_FAILED) return false;
  base_ = static_cast<uint8_t*>(mem);
  bytes_ = bytes;
  count_ = count;
  next_ = std::make_unique<std::atomic<uint32_t>[]>(count);
  // Touch the first buffers now, so the first requests do not fault pages in on the
  // application's threads.
  for (uint32_t i = 0; i < resident && i < count; ++i) std::memset(base_ + i * bytes_, 0, bytes_);
  // Free list in index order: 0 on top.
  for (uint32_t i = 0; i < count; ++i) {
    next_[i].store(i + 1 < count ? i + 2 : 0, std::memory_order_relaxed);
  }
  head_.store(1, std::memory_order_release);
  return true;
}

uint8_t* BufferPool::take() {
  uint64_t head = head_.load(std::memory_order_acquire);
  for (;;) {
    const auto top = static_cast<uint32_t>(head);
    if (top == 0) return nullptr;
    const uint32_t after = next_[top - 1].load(std::memory_order_relaxed);
    const uint64_t tag = (head >> 32) + 1;
    if (head_.compare_exchange_weak(head, (tag << 32) | after, std::memory_order_acq_rel,
                                    std::memory_order_acquire)) {
      inUse_.fetch_add(1, std::memory_order_relaxed);
      return base_ + (top - 1) * bytes_;
    }
  }
}

void BufferPool::give(uint8_t* buffer) {
  if (!owns(buffer)) return;
  const uint32_t index = indexOf(buffer);
  uint64_t head = head_.load(std::memory_order_acquire);
  for (;;) {
    next_[index].store(static_cast<uint32_t>(head), std::memory_order_relaxed);
    const uint64_t tag = head >> 32;
    if (head_.compare_exchange_weak(head, (tag << 32) | (index + 1), std::memory_order_acq_rel,
                                    std::memory_order_acquire)) {
      inUse_.fetch_sub(1, std::memory_order_relaxed);
      return;
    }
  }
}

bool BufferPool::owns(const uint8_t* buffer) const {
  return base_ != nullptr && buffer >= base_ && buffer < base_ + bytes_ * count_ &&
         (buffer - base_) % static_cast<ptrdiff_t>(bytes_) == 0;
}

}  // namespace bubblescope::agent
