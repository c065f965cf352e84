#pragma once
// The what-if table's parts every report shares: the activations a scenario holds (the memory
// column and its note), what the best scenario assumes, and a row's memory in JSON.
#include <string>

#include "analyzer/report/json_writer.h"
#include "analyzer/result/result.h"

namespace bubblescope::analysis {

// The available row other than "measured" with the largest speedup; null when there is none.
const WhatIf* bestWhatIf(const PipelineResult& pipeline);

// The most activations a stage holds in the row, in microbatches of the measured job, with
// bytes where known: "4", "5.5 (1.2 GiB)"; "" for a row without them.
std::string activationCell(const WhatIf& row);

// What the memory column counts and in what unit, bytes or why not: one sentence for under the
// table.
std::string activationColumnNote(const PipelineResult& pipeline);

// What a scenario assumes, for the best what-if: its note (B and W not timed apart, half-size
// ops) and the activations it holds against the measured order's, e.g. "B and W not timed apart:
// each taken as half of BW (2.00 ms); holds up to 7 microbatches' activations on every stage,
// 1.75x the measured 1F1B's 4 (stage 0)".
std::string whatIfAssumptions(const PipelineResult& pipeline, const WhatIf& row);

// {"microbatches": per stage, "most_microbatches", "bytes": per stage or null, "most_bytes"};
// null for a row without them.
void writeActivationMemoryJson(const WhatIf& row, JsonWriter& out);

}  // namespace bubblescope::analysis
