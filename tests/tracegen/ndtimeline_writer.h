#pragma once
// Writes a MegatronTimeline as NDTimeline exports it: a JSON array of Chrome-trace events, pid =
// DP rank with a "DP rank d" process_name, one thread per (global rank, category) with tid =
// rank * 5 + category named "PP rank S, TP rank T, <category>", X events in µs with args step,
// mb_id, model_chunk, seq_id. Plain or gzip; the metadata before, after or among the events.
#include <filesystem>
#include <string>

#include "tests/tracegen/megatron_execution.h"

namespace bubblescope::tracegen {

// Where the process and thread names go.
enum class NdMetadata {
  First,        // before every event
  Last,         // after every event, as NDTimeline's published timelines have them
  Interleaved,  // each rank's thread names after its own events, a DP rank's process name after
                // the events of its first rank: the file opens with a timed event
};

std::string ndTimelineJson(const MegatronTimeline& timeline,
                           NdMetadata metadata = NdMetadata::First);
// Throws std::runtime_error when the file cannot be written.
void writeNdTimeline(const MegatronTimeline& timeline, const std::filesystem::path& file,
                     bool gzip = false, NdMetadata metadata = NdMetadata::First);

}  // namespace bubblescope::tracegen
