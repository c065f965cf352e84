#include "cli/malloc_policy.h"

#include <malloc.h>

#include <algorithm>
#include <thread>

namespace bubblescope::cli {

void configureMalloc() {
  // Fixing the threshold also turns off glibc's dynamic adjustment of it (mallopt(3)). A setting
  // refused leaves glibc's default, which only holds more memory.
  mallopt(M_MMAP_THRESHOLD, 64 * 1024);
  mallopt(M_ARENA_MAX, static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

}  // namespace bubblescope::cli
