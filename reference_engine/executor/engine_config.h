#pragma once
// Everything one engine run needs: the schedule, how ops compute, the faults to inject, and where
// the truth goes. The launcher hands it to every stage process as JSON (config_json.h).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "reference_engine/executor/compute.h"
#include "reference_engine/executor/faults.h"
#include "reference_engine/executor/mlp.h"
#include "reference_engine/executor/op_costs.h"
#include "reference_engine/schedule/schedule.h"

namespace bubblescope::engine {

struct EngineConfig {
  std::string scheduleName;  // as the user named it ("1f1b"); schedule.kind says which it is
  Schedule schedule;
  int steps = 3;
  ComputeMode compute = ComputeMode::Sleep;
  // The engine's own NVTX labels (ops, SEND/RECV, steps, grad_sync, optimizer). Without them
  // (--no-labels) its transfers show only as NCCL's own ranges would (nccl_ranges.h).
  bool labels = true;
  OpCosts costs;                  // sleep mode
  uint64_t payloadBytes = 65536;  // sleep mode: bytes of each activation and gradient
  MlpShape mlp;                   // mlp mode
  uint64_t seed = 1;
  Faults faults;

  std::filesystem::path truthPath = "truth.json";
  double timeoutSeconds = 600;  // the watchdog stops a run that takes longer
  // The command that starts one stage process (the program re-executed as a worker); the
  // worker's own flags are appended. Configuration, so the library does not know the CLI.
  std::vector<std::string> workerCommand;
  std::vector<std::string> commandLine;  // as typed, recorded in truth.json
};

// Rejects what the engine cannot run, with one sentence (std::invalid_argument).
void validate(const EngineConfig& config);

}  // namespace bubblescope::engine
