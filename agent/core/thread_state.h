#pragma once
// Per-thread recording state: the thread's record ring, its stack of open push/pop ranges and its
// drop counters. Each application thread that records gets one on its first event (the only
// allocation it ever makes); the writer thread drains them all. A state outlives its thread
// until drained, then is recycled for a new thread, so memory stays bounded.
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "agent/core/event_ring.h"

namespace bubblescope::agent {

// Who produced an event, for drop accounting (dropped_events.source in the file).
enum class Source : uint8_t { Nvtx = 0, Cupti = 1, Nccl = 2 };
inline constexpr int kSourceCount = 3;
const char* sourceName(Source source);

// Longest message kept inline; longer ones are truncated (at a UTF-8 character boundary).
inline constexpr uint32_t kMaxMessageBytes = 120;
// Deepest push/pop nesting tracked per thread; deeper ranges are dropped and counted.
inline constexpr uint32_t kMaxRangeDepth = 128;

// OpenRange::flags: pushed while dormant (open-op tracking), so its pop records nothing.
inline constexpr uint16_t kPushedDormant = 1;

// A push/pop range opened on this thread and not yet closed.
struct OpenRange {
  uint64_t startTicks;
  const void* domain;      // producer's domain handle (nullptr = the default domain)
  const void* registered;  // producer's registered-string handle, or nullptr: text is inline
  uint32_t category;
  uint32_t color;
  uint16_t textSize;
  uint16_t flags;  // kPushedDormant
  uint16_t reserved[2];
  char text[kMaxMessageBytes];
};

// Written by its thread only; the writer thread copies the open entries (what a hung rank was
// doing) under a sequence lock: `seq` is odd while the owner changes an entry, and a copy taken
// while it changed is retried. A push pays two plain stores, no locked instruction; popping the
// innermost range only lowers `depth` (it changes no entry).
struct RangeStack {
  uint32_t depth = 0;     // entries in use
  uint32_t overflow = 0;  // ranges pushed beyond kMaxRangeDepth, still open
  std::atomic<uint32_t> seq{0};
  OpenRange entries[kMaxRangeDepth];

  void beginChange() {
    seq.store(seq.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
  }
  void endChange() {
    seq.store(seq.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  }
  void clear() {
    beginChange();
    depth = overflow = 0;
    endChange();
  }
};

enum class ThreadStatus : uint8_t {
  Active,    // owned by a live thread
  Retired,   // its thread exited; the writer drains it, then frees it
  Free,      // drained, ready for the next new thread
  Claiming,  // being taken by a new thread (the writer leaves it alone)
};

struct ThreadState {
  // Written by the owning thread only.
  EventRing ring;
  RangeStack ranges;
  uint32_t generation = 0;  // recording generation the open ranges belong to
  uint32_t serial = 0;      // unique per state in this process (start/end range ids)
  uint64_t nextRangeId = 0;
  // Read by the writer, so on a line of its own: the writer's reads never share a line with the
  // owner's fields above (why that matters: EventRing's layout).
  alignas(64) std::atomic<uint64_t> dropped[kSourceCount] = {};
  std::atomic<uint64_t> tid{0};
  std::atomic<ThreadStatus> status{ThreadStatus::Claiming};
  ThreadState* next = nullptr;  // registry link, set before the state is published
  uint8_t* ringMemory = nullptr;

  // Single writer (the owning thread): a plain increment, no locked instruction.
  void countDrop(Source source) {
    auto& c = dropped[static_cast<int>(source)];
    c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
};

// The calling thread's state, or nullptr before its first recorded event.
extern __thread ThreadState* t_thread __attribute__((tls_model("initial-exec")));

// Sets the ring size for threads that start recording from now on, and the most rings the
// process may hold (threads beyond that record nothing and count every event as dropped).
void configureThreadBuffers(size_t ringBytes, size_t maxRings);
size_t threadRingBytes();

// Slow path: the calling thread's state, created or recycled on first use; nullptr only when
// memory is exhausted.
ThreadState* acquireThreadState();

inline ThreadState* currentThreadState() {
  ThreadState* t = t_thread;
  return t != nullptr ? t : acquireThreadState();
}

// Writer: every state ever created (live, retired or free), newest first.
ThreadState* firstThreadState();

// In a forked child: only the calling thread exists. Its state is kept (emptied); all others
// become free; drop counts restart at zero.
void resetThreadStatesInForkChild();

}  // namespace bubblescope::agent
