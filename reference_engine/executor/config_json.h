#pragma once
// JSON forms of the engine's configuration: how the launcher hands it to the stage processes,
// and the header of truth.json. Written streamed (traces/json); each *FromJson() reads what its
// write*() wrote.
#include <ostream>

#include <nlohmann/json.hpp>

#include "reference_engine/executor/engine_config.h"
#include "traces/json/json_writer.h"

namespace bubblescope::engine {

void writeScheduleJson(const Schedule& schedule, traces::JsonWriter& out);
Schedule scheduleFromJson(const nlohmann::json& j);

// `effectsOf`: truth.json's form, where each mismatch also says where it makes its two stages
// block in that schedule (planMismatch, order_fault.h).
void writeFaultsJson(const Faults& faults, traces::JsonWriter& out,
                     const Schedule* effectsOf = nullptr);
Faults faultsFromJson(const nlohmann::json& j);

void writeCostsJson(const OpCosts& costs, traces::JsonWriter& out);  // ms per kind, optimizer

// The whole configuration file, one space a level, a newline after.
void writeEngineConfigJson(const EngineConfig& config, std::ostream& out);
EngineConfig engineConfigFromJson(const nlohmann::json& j);

}  // namespace bubblescope::engine
