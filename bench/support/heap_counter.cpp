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

// Each block carries its size in front, in a header as wide as the block's alignment (16 bytes
// keep the alignment plain new promises; an over-aligned new asks for more).
void* counted(size_t n, size_t align = 16) {
  const size_t header = align < 16 ? 16 : align;
  void* p = align <= 16 ? std::malloc(n + header)
                        : std::aligned_alloc(align, (n + header + align - 1) / align * align);
  if (!p) return nullptr;
  char* block = static_cast<char*>(p) + header;
  *reinterpret_cast<size_t*>(block - 16) = n;
  *reinterpret_cast<size_t*>(block - 8) = header;
  note(static_cast<int64_t>(n));
  return block;
}

void* countedOrThrow(size_t n, size_t align = 16) {
  void* p = counted(n, align);
  if (!p) throw std::bad_alloc();
  return p;
}

void release(void* p) {
  if (!p) return;
  char* block = static_cast<char*>(p);
  note(-static_cast<int64_t>(*reinterpret_cast<size_t*>(block - 16)));
  std::free(block - *reinterpret_cast<size_t*>(block - 8));
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

// Every replaceable form, not only the plain ones: a form left to the runtime pairs its
// allocator with ours. libstdc++'s own nothrow new calls the plain one, but an allocator
// preloaded for an experiment (LD_PRELOAD of jemalloc) brings its own, and std::stable_sort's
// buffer, taken with nothrow new and given back through delete here, corrupted the heap.
void* operator new(size_t n) {
  return countedOrThrow(n);
}
void* operator new[](size_t n) {
  return countedOrThrow(n);
}
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  return counted(n);
}
void* operator new[](size_t n, const std::nothrow_t&) noexcept {
  return counted(n);
}
void* operator new(size_t n, std::align_val_t a) {
  return countedOrThrow(n, static_cast<size_t>(a));
}
void* operator new[](size_t n, std::align_val_t a) {
  return countedOrThrow(n, static_cast<size_t>(a));
}
void* operator new(size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted(n, static_cast<size_t>(a));
}
void* operator new[](size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted(n, static_cast<size_t>(a));
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
void operator delete(void* p, const std::nothrow_t&) noexcept {
  release(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  release(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  release(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  release(p);
}
void operator delete(void* p, size_t, std::align_val_t) noexcept {
  release(p);
}
void operator delete[](void* p, size_t, std::align_val_t) noexcept {
  release(p);
}
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  release(p);
}
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  release(p);
}
