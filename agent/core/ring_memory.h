#pragma once
// Memory for a thread's record ring: mapped, and every page written once, before the first
// record. MAP_POPULATE builds the kernel's page tables, but a hypervisor that shadows them (PVM,
// or shadow paging under nested virtualisation) still traps the thread's first write to each
// page, about 2 us a page on such a guest: 30-40 ns a record over a fresh ring. Writing one byte
// per page here pays that once, at the thread's first event, not on the hot path
// (bench/agent/ring_page_bench.cpp; docs/benchmarks.md).
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>

namespace bubblescope::agent {

// The smallest x86-64 and arm64 page: touching at this stride reaches every larger page too.
inline constexpr size_t kSmallestPage = 4096;

inline void touchEveryPage(uint8_t* mem, size_t bytes) {
  for (size_t off = 0; off < bytes; off += kSmallestPage) {
    static_cast<volatile uint8_t*>(mem)[off] = 0;
  }
}

// `bytes` of zeroed memory ready to be written without a fault, or nullptr.
inline uint8_t* mapRingMemory(size_t bytes, bool touch = true) {
  void* mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (mem == MAP_FAILED) return nullptr;
  if (touch) touchEveryPage(static_cast<uint8_t*>(mem), bytes);
  return static_cast<uint8_t*>(mem);
}

}  // namespace bubblescope::agent
