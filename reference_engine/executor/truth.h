#pragma once
// truth.json: what the engine was asked to do (schedule, costs, faults) and what each stage did,
// merged from the stages' parts. The layout is documented in docs/engine.md.
#include <cstdint>
#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "reference_engine/executor/engine_config.h"

namespace bubblescope::engine {

inline constexpr int kTruthSchemaVersion = 1;

// `stageParts[s]` is stage s's part (stage_record.h). Start and end frame the whole run.
nlohmann::json buildTruth(const EngineConfig& config, std::vector<nlohmann::json> stageParts,
                          int64_t startNs, int64_t endNs);

// Writes through a temporary file and a rename, so a reader never sees half a truth.
void writeJsonFile(const std::filesystem::path& path, const nlohmann::json& j);

}  // namespace bubblescope::engine
