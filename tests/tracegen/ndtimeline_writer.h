#pragma once
// Writes a MegatronTimeline as NDTimeline exports it: a JSON array of Chrome-trace events, pid =
// DP rank with a "DP rank d" process_name, one thread per (global rank, category) with tid =
// rank * 5 + category named "PP rank S, TP rank T, <category>", X events in µs with args step,
// mb_id, model_chunk, seq_id. Plain or gzip.
#include <filesystem>
#include <string>

#include "tests/tracegen/megatron_execution.h"

namespace bubblescope::tracegen {

std::string ndTimelineJson(const MegatronTimeline& timeline);
// Throws std::runtime_error when the file cannot be written.
void writeNdTimeline(const MegatronTimeline& timeline, const std::filesystem::path& file,
                     bool gzip = false);

}  // namespace bubblescope::tracegen
