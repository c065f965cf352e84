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
// The same, with each event parsed on a second thread (`parseAside`, what the one above does on
// a machine of several cores) or in line: the same ranks either way.
ImportedFile importChromeTrace(ByteSource& source, bool parseAside);
// `threads`: how many the import may use (0: one per core; a file imported beside others, one).
ImportedFile importChromeTraceFile(const std::filesystem::path& file, unsigned threads = 0);

}  // namespace bubblescope::traces::import
