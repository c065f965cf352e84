#pragma once
// JSON forms of the engine's configuration: how the launcher hands it to the stage processes,
// and the header of truth.json. Each from*() is the inverse of its to*().
#include <nlohmann/json.hpp>

#include "reference_engine/executor/engine_config.h"

namespace bubblescope::engine {

nlohmann::json scheduleToJson(const Schedule& schedule);
Schedule scheduleFromJson(const nlohmann::json& j);

nlohmann::json faultsToJson(const Faults& faults);
Faults faultsFromJson(const nlohmann::json& j);

nlohmann::json costsToJson(const OpCosts& costs);  // ms per kind: F, B, W, BW, optimizer

nlohmann::json engineConfigToJson(const EngineConfig& config);
EngineConfig engineConfigFromJson(const nlohmann::json& j);

}  // namespace bubblescope::engine
