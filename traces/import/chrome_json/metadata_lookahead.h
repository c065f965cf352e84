#pragma once
// Reads a Chrome-trace file's metadata ahead of the import, for the dialect clues it holds: some
// exporters (NDTimeline) write their thread names after all their events. One cheap pass over
// the bytes, keeping nothing of the events: only "M" events are parsed.
#include <cstddef>

#include "traces/import/byte_source.h"
#include "traces/import/chrome_json/dialects.h"

namespace bubblescope::traces::import {

// Streams `input` from its start into `clues`' metadata, stopping as soon as nothing more could
// overrule `chosen` (DialectClues::metadataCouldOverrule). Throws TraceError as the import would.
void readMetadataAhead(ByteSource& input, DialectClues& clues, size_t chosen);

}  // namespace bubblescope::traces::import
