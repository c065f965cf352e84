#pragma once
// A bounded single-producer, single-consumer ring of variable-size records: the thread that owns
// it appends without locks or allocation; the writer thread drains it. Full means the record is
// dropped (the caller counts it), never that anyone waits.
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace bubblescope::agent {

// Every record starts with this header. Sizes are multiples of 8, so headers stay aligned.
struct RecordHeader {
  uint16_t type;         // kPaddingRecord, or a type from registerRecordType()
  uint16_t payloadSize;  // bytes of the fixed payload after the header
  uint16_t textSize;     // bytes of text after the payload (not NUL-terminated)
  uint16_t size8;        // size of the whole record / 8
};
static_assert(sizeof(RecordHeader) == 8);

inline constexpr uint16_t kPaddingRecord = 0;

constexpr uint32_t recordBytes(uint32_t payloadSize, uint32_t textSize) {
  return (static_cast<uint32_t>(sizeof(RecordHeader)) + payloadSize + textSize + 7u) & ~7u;
}

class EventRing {
 public:
  // `capacity` is a power of two (or 0: a ring that drops everything).
  void attach(uint8_t* data, size_t capacity) {
    data_ = data;
    capacity_ = capacity;
    mask_ = capacity == 0 ? 0 : capacity - 1;
    reset();
  }
  void reset() {
    head_.store(0, std::memory_order_relaxed);
    tail_.store(0, std::memory_order_relaxed);
    cachedTail_ = 0;
    pendingHead_ = 0;
  }
  size_t capacity() const { return capacity_; }

  // Producer: room for `bytes` (a multiple of 8) contiguous bytes, or nullptr if full. Fill them,
  // then commit(bytes). A record never wraps: the end of the ring is padded instead.
  uint8_t* reserve(uint32_t bytes) {
    uint64_t head = head_.load(std::memory_order_relaxed);
    size_t pos = head & mask_;
    const size_t room = capacity_ - pos;
    const uint64_t need = bytes <= room ? bytes : room + bytes;
    if (head + need - cachedTail_ > capacity_) {
      cachedTail_ = tail_.load(std::memory_order_acquire);
      if (head + need - cachedTail_ > capacity_) return nullptr;
    }
    if (bytes > room) {
      auto* pad = reinterpret_cast<RecordHeader*>(data_ + pos);
      *pad = RecordHeader{kPaddingRecord, 0, 0, static_cast<uint16_t>(room / 8)};
      head += room;
      pos = 0;
    }
    pendingHead_ = head;
    return data_ + pos;
  }
  void commit(uint32_t bytes) { head_.store(pendingHead_ + bytes, std::memory_order_release); }

  // Consumer: how far the producer has published (a bound for drain()).
  uint64_t published() const { return head_.load(std::memory_order_acquire); }
  // Consumer: calls visit(header, payload, text) for up to `maxRecords` records, oldest first,
  // stopping at `upTo` (a published() value) or at what is published now, whichever is first;
  // then frees their space. Returns how many it visited.
  template <class Visit>
  size_t drain(Visit&& visit, size_t maxRecords, uint64_t upTo = UINT64_MAX) {
    uint64_t tail = tail_.load(std::memory_order_relaxed);
    uint64_t head = head_.load(std::memory_order_acquire);
    if (upTo < head) head = upTo;
    // Locals, not members: visit() is opaque, so members would be re-read after every record.
    const uint8_t* const data = data_;
    const size_t mask = mask_;
    size_t n = 0;
    while (tail < head && n < maxRecords) {
      const uint8_t* at = data + (tail & mask);
      const auto* h = reinterpret_cast<const RecordHeader*>(at);
      if (h->type != kPaddingRecord) {
        const uint8_t* payload = at + sizeof(RecordHeader);
        visit(*h, payload, reinterpret_cast<const char*>(payload + h->payloadSize));
        ++n;
      }
      tail += static_cast<uint64_t>(h->size8) * 8;
    }
    tail_.store(tail, std::memory_order_release);
    return n;
  }
  // Consumer: forgets everything published so far.
  void discard() { tail_.store(head_.load(std::memory_order_acquire), std::memory_order_release); }
  size_t usedBytes() const {
    return static_cast<size_t>(head_.load(std::memory_order_acquire) -
                               tail_.load(std::memory_order_acquire));
  }
  bool empty() const { return usedBytes() == 0; }
  uint64_t consumed() const { return tail_.load(std::memory_order_acquire); }

 private:
  // Three cache lines: what both sides only read, what the producer writes, what the consumer
  // writes. Each read the writer makes of a line the producer writes turns the producer's next
  // store there into a cache miss: when the writer re-read data_ and mask_ (then beside head_)
  // for every record it decoded, a recorded NVTX push+pop cost a third more or worse (figures in
  // docs/benchmarks.md, "Agent: NVTX path").
  alignas(64) uint8_t* data_ = nullptr;
  size_t capacity_ = 0;
  size_t mask_ = 0;
  alignas(64) std::atomic<uint64_t> head_{0};
  uint64_t cachedTail_ = 0;   // producer's last view of tail_
  uint64_t pendingHead_ = 0;  // where the reserved record starts
  alignas(64) std::atomic<uint64_t> tail_{0};
};

}  // namespace bubblescope::agent
