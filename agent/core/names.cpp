#include "agent/core/names.h"

#include <atomic>

namespace bubblescope::agent {
namespace {

std::atomic<const ThreadName*> g_newest{nullptr};

}  // namespace

void nameThread(uint64_t tid, std::string_view name) {
  ThreadName* entry = nullptr;
  try {
    entry = new ThreadName{tid, std::string(name), nullptr};
  } catch (...) {
    return;  // out of memory: the thread keeps its OS name
  }
  const ThreadName* head = g_newest.load(std::memory_order_relaxed);
  do {
    entry->next = head;
  } while (!g_newest.compare_exchange_weak(head, entry, std::memory_order_release,
                                           std::memory_order_relaxed));
}

const ThreadName* newestThreadName() {
  return g_newest.load(std::memory_order_acquire);
}

}  // namespace bubblescope::agent
