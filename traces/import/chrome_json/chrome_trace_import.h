#pragma once
// Imports a Chrome-trace JSON file in whichever dialect it is (dialects.h): a Kineto / PyTorch
// profiler trace (one rank), an NDTimeline timeline (one rank per thread group) or a plain
// op-level timeline (one rank per pid). Plain, gzip or zstd; streamed, so memory stays near the
// size of the model it builds.
#include <filesystem>
#include <string_view>

#include "traces/import/byte_source.h"
#include "traces/import/imported.h"

namespace bubblescope::traces::import {

// Throws TraceError naming the file: not JSON, JSON that is not a trace, truncated, no events.
ImportedFile importChromeTrace(ByteSource& source);
ImportedFile importChromeTraceFile(const std::filesystem::path& file);

}  // namespace bubblescope::traces::import
