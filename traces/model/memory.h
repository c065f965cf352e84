#pragma once
// Bytes the in-memory model holds, for the per-event memory budgets.
#include <cstddef>

#include "traces/model/trace.h"

namespace bubblescope::traces {

// Heap bytes of the event columns (capacity, not size) plus the string table's characters.
size_t eventMemoryBytes(const RankTrace& trace);

}  // namespace bubblescope::traces
