#include "bench/support/heap_counter.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {

std::atomic<int64_t> liveBytes{0};
std::atomic<int64_t> peakBytes{0};

// Each block carries its size in front (16 bytes keep the alignment new promises).
void* counted(size_t n) {
  void* p = std::malloc(n + 16);
  if (!p) throw std::bad_alloc();
  *static_cast<size_t*>(p) = n;
  const int64_t now = liveBytes += static_cast<int64_t>(n);
  int64_t peak = peakBytes.load();
  while (now > peak && !peakBytes.compare_exchange_weak(peak, now)) {
  }
  return static_cast<char*>(p) + 16;
}

void release(void* p) {
  if (!p) return;
  char* base = static_cast<char*>(p) - 16;
  liveBytes -= static_cast<int64_t>(*reinterpret_cast<size_t*>(base));
  std::free(base);
}

}  // namespace

namespace bubblescope::bench {

int64_t heapLiveBytes() {
  return liveBytes.load();
}

int64_t heapPeakBytes() {
  return peakBytes.load();
}

int64_t restartHeapPeak() {
  const int64_t now = liveBytes.load();
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
