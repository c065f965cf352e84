#pragma once
// truth.json: what the engine was asked to do (schedule, costs, faults) and what each stage did,
// from the stages' records. The layout is documented in docs/engine.md.
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "reference_engine/executor/engine_config.h"
#include "reference_engine/executor/stage_record.h"

namespace bubblescope::engine {

inline constexpr int kTruthSchemaVersion = 1;

// The whole file, streamed, one space a level, a newline after. `stages[s]` is what stage s did
// (none when the run was stopped before the stages could say); start and end frame the whole run;
// `outcome` is "finished" or how the launcher ended it.
void writeTruthJson(const EngineConfig& config, const std::vector<StageRecord>& stages,
                    int64_t startNs, int64_t endNs, const std::string& outcome, std::ostream& out);

}  // namespace bubblescope::engine
