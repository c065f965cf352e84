// The program's own operator new (the language lets a program replace it): glibc's malloc, and
// a large block advised onto huge pages where configureMalloc() asked for them. Linked into the
// bubblescope program only, so the agent (inside the job) and the tests keep the standard one.
#include <cstdlib>
#include <new>

#include "cli/malloc_policy.h"

void* operator new(std::size_t n) {
  for (;;) {
    if (void* p = std::malloc(n == 0 ? 1 : n)) {
      // Checked here, inline: every allocation passes, few are large.
      if (n >= bubblescope::cli::kHugePagesFrom) bubblescope::cli::adviseHugePages(p, n);
      return p;
    }
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) throw std::bad_alloc();
    handler();
  }
}
