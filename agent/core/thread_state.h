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
// doing) while the thread runs on. `state` holds the depth (low 32 bits) and a count of entry
// changes (high 32): a push writes the entry above the depth, then publishes depth + 1 and a new
// count in one store; popping the innermost range only lowers the depth (it changes no entry);
// whatever else rewrites entries (a pop from the middle, a reset) first counts a change and
// lowers the depth beneath them. A copy taken between two reads of `state` with the same count
// holds whole entries below both depths: only pops came meanwhile, and a push under way writes
// the entry at the depth the second read holds. A push pays one load and one store of `state`,
// a pop the same: no locked instruction, and no second counter to keep (a sequence lock's two
// increments per push were a quarter of the dormant push).
struct RangeStack {
  static constexpr uint64_t kChange = uint64_t{1} << 32;
  static uint32_t depthOf(uint64_t state) { return static_cast<uint32_t>(state); }

  std::atomic<uint64_t> state{0};
  uint32_t overflow = 0;  // ranges pushed beyond kMaxRangeDepth, still open
  OpenRange entries[kMaxRangeDepth];

  // Owner only (a plain load: nobody else writes it).
  uint64_t load() const { return state.load(std::memory_order_relaxed); }
  uint32_t depth() const { return depthOf(load()); }
  // Before writing entries[depthOf(s)]: the stores that lowered the depth (pops) come first.
  static void beforeEntryWrite() { std::atomic_thread_fence(std::memory_order_release); }
  // The entry at depthOf(s) is written: publish it.
  void pushed(uint64_t s) { state.store(s + kChange + 1, std::memory_order_release); }
  // The innermost entry is closed.
  void popped(uint64_t s) { state.store(s - 1, std::memory_order_relaxed); }
  // Entries from `depth` up are about to change (or go): hide them first.
  void lowerTo(uint32_t depth) {
    state.store(((load() >> 32) + 1) << 32 | depth, std::memory_order_relaxed);
    beforeEntryWrite();
  }
  // Sets the depth after entries changed under lowerTo.
  void setDepth(uint32_t depth) {
    state.store(((load() >> 32) + 1) << 32 | depth, std::memory_order_release);
  }
  void clear() {
    lowerTo(0);
    overflow = 0;
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
