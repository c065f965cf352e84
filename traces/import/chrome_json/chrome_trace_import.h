#pragma once
// Imports a Chrome-trace JSON file: a Kineto / PyTorch profiler trace (one rank), or a generic
// op-level timeline (one rank per pid), or an NDTimeline timeline (one rank per thread group,
// told by its "PP rank S, TP rank T, ..." thread names before the first timed event). Plain, gzip
// or zstd; streamed, so memory stays near the size of the model it builds. Kineto is told by its
// top-level keys (schemaVersion, deviceProperties, distributedInfo, baseTimeNanoseconds) or its
// event categories.
#include <filesystem>
#include <string_view>

#include "traces/import/byte_source.h"
#include "traces/import/imported.h"

namespace bubblescope::traces::import {

// Throws TraceError naming the file: not JSON, JSON that is not a trace, truncated, no events.
ImportedFile importChromeTrace(ByteSource& source);
ImportedFile importChromeTraceFile(const std::filesystem::path& file);

}  // namespace bubblescope::traces::import
