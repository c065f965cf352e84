#include "cli/malloc_policy.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>

namespace bubblescope::cli {
namespace {

std::atomic<bool> hugePages{false};

}  // namespace

void configureMalloc() {
  // Fixing the threshold also turns off glibc's dynamic adjustment of it (mallopt(3)). A setting
  // refused leaves glibc's default, which only holds more memory.
  mallopt(M_MMAP_THRESHOLD, 64 * 1024);
  mallopt(M_ARENA_MAX, static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  hugePages.store(true, std::memory_order_relaxed);
}

void adviseHugePages(void* block, std::size_t bytes) {
  if (!hugePages.load(std::memory_order_relaxed)) return;
  static const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  // The block's own pages: above the mmap threshold, glibc maps each such block apart.
  const auto at = reinterpret_cast<std::uintptr_t>(block);
  const std::uintptr_t begin = at & ~(page - 1);
  const std::uintptr_t end = (at + bytes + page - 1) & ~(page - 1);
  // Refused (THP off, an old kernel): the block keeps small pages, as before.
  madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

}  // namespace bubblescope::cli
