#include "bench/support/heap_counter.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {

std::atomic<int64_t> liveBytes{0};
std::atomic<int64_t> peakBytes{0};

// Each thread adds its allocations to the shared counts once they are kFlushBytes either way, not
// one by one: two threads allocating at once fought over the counts' cache line, and a program's
// parallel phases ran slower counted than not (a pipeline's steps on two threads: 34.8 s for the
// 10^6-step timeline, where `bubblescope analyze` took ~26). The peak is then exact to within
// kFlushBytes a thread.
constexpr int64_t kFlushBytes = 64 * 1024;

void addLive(int64_t bytes) {
  const int64_t now = liveBytes += bytes;
  int64_t peak = peakBytes.load();
  while (now > peak && !peakBytes.compare_exchange_weak(peak, now)) {
  }
}

// A thread's bytes not yet added, added when it ends.
struct Pending {
  int64_t bytes = 0;
  ~Pending() { addLive(bytes); }
};
thread_local Pending pending;

void note(int64_t bytes) {
  pending.bytes += bytes;
  if (pending.bytes >= kFlushBytes || pending.bytes <= -kFlushBytes) {
    addLive(pending.bytes);
    pending.bytes = 0;
  }
}

// Each block carries its size in front (16 bytes keep the alignment new promises).
void* counted(size_t n) {
  void* p = std::malloc(n + 16);
  if (!p) throw std::bad_alloc();
  *static_cast<size_t*>(p) = n;
  note(static_cast<int64_t>(n));
  return static_cast<char*>(p) + 16;
}

void release(void* p) {
  if (!p) return;
  char* base = static_cast<char*>(p) - 16;
  note(-static_cast<int64_t>(*reinterpret_cast<size_t*>(base)));
  std::free(base);
}

}  // namespace

namespace bubblescope::bench {

int64_t heapLiveBytes() {
  addLive(pending.bytes);  // the caller's own, as it reads
  pending.bytes = 0;
  return liveBytes.load();
}

int64_t heapPeakBytes() {
  return peakBytes.load();
}

int64_t restartHeapPeak() {
  const int64_t now = heapLiveBytes();
  peakBytes = now;
  return now;
}

}  // namespace bubblescope::bench

void* operator new(size_t n) {
  return counted(n);
}
void* operator new[](size_t n) {
  return counted(n);
}
void operator delete(void* p) noexcept {
  release(p);
}
void operator delete[](void* p) noexcept {
  release(p);
}
void operator delete(void* p, size_t) noexcept {
  release(p);
}
void operator delete[](void* p, size_t) noexcept {
  release(p);
}
