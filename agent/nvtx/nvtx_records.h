#pragma once
// The records the NVTX handlers put in a thread's ring, and their decoders (writer side).
// Timestamps are ticks (agent/core/clock.h). A push/pop range is one record, written when it
// ends; a start/end range is two (they may come from different threads), joined by the writer.
#include <cstdint>

#include "agent/core/producer.h"
#include "agent/nvtx/nvtx_registry.h"

namespace bubblescope::agent {

struct NvtxRangePayload {
  uint64_t start, end;
  const NvtxDomain* domain;      // nullptr: the default domain
  const NvtxString* registered;  // nullptr: the name is the record's text
  uint32_t category, color;
  uint32_t depth, reserved;
};

// Ids of start/end ranges: (state serial << 40) | (counter << 1) | recorded. An id whose start
// record was dropped has bit 0 clear, and its end is ignored (the drop was counted once).
struct NvtxStartPayload {
  uint64_t id;
  uint64_t start;
  const NvtxDomain* domain;
  const NvtxString* registered;
  uint32_t category, color;
};

struct NvtxEndPayload {
  uint64_t id;
  uint64_t end;
};

struct NvtxMarkPayload {
  uint64_t ts;
  const NvtxDomain* domain;
  const NvtxString* registered;
  uint32_t category, color;
};

struct NvtxRecordTypes {
  RecordType range = 0, start = 0, end = 0, mark = 0;
};

// Registers the record types and writer hooks (once, at start-up) and returns them.
const NvtxRecordTypes& registerNvtxRecords();
extern NvtxRecordTypes g_nvtxTypes;

}  // namespace bubblescope::agent
