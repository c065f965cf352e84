#pragma once
// Names given to OS threads (nvtxNameOsThread, or later by other producers). Naming is rare and
// may happen while nothing records, so names go to an append-only lock-free list rather than a
// ring; the writer reads it every cycle. Entries are never freed (events may still refer to them).
#include <cstdint>
#include <string>
#include <string_view>

namespace bubblescope::agent {

struct ThreadName {
  uint64_t tid;
  std::string name;
  const ThreadName* next;  // older entry
};

// Any thread; allocates (a cold path).
void nameThread(uint64_t tid, std::string_view name);
// The newest entry, or nullptr; follow `next` to older ones.
const ThreadName* newestThreadName();

}  // namespace bubblescope::agent
