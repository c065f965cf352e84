#pragma once
// The host buffers CUPTI fills with activity records: a fixed number of equal buffers in one
// mapping made at start-up, handed out and returned without a lock or an allocation (CUPTI asks
// for buffers on the application's threads, in the middle of a kernel launch: kineto#1020).
// When every buffer is in use the request is refused and the records are dropped and counted.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace bubblescope::agent {

class BufferPool {
 public:
  BufferPool() = default;
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // Maps count × bytes (bytes rounded up to pages); the first `resident` buffers are faulted
  // in now, the others on first use. False if the mapping failed. Once only.
  bool init(size_t bytes, uint32_t count, uint32_t resident);

  // Any thread: a free buffer, or nullptr when all are in use.
  uint8_t* take();
  // Any thread: a buffer from take() is free again.
  void give(uint8_t* buffer);

  bool owns(const uint8_t* buffer) const;
  size_t bufferBytes() const { return bytes_; }
  uint32_t count() const { return count_; }
  uint32_t inUse() const { return inUse_.load(std::memory_order_relaxed); }

 private:
  uint32_t indexOf(const uint8_t* buffer) const {
    return static_cast<uint32_t>((buffer - base_) / static_cast<ptrdiff_t>(bytes_));
  }

  uint8_t* base_ = nullptr;
  size_t bytes_ = 0;
  uint32_t count_ = 0;
  // Treiber stack of free buffer indexes: (tag << 32) | (index + 1), 0 = empty. The tag counts
  // pops so a stale compare-exchange cannot succeed (ABA).
  std::atomic<uint64_t> head_{0};
  std::unique_ptr<std::atomic<uint32_t>[]> next_;  // index + 1 of the next free buffer
  std::atomic<uint32_t> inUse_{0};
};

}  // namespace bubblescope::agent
