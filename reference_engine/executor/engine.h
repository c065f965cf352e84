#pragma once
// `engine run`: the reference engine as a real multi-process job. Starts one process per stage
// (each re-executes the program as a worker, so an LD_PRELOADed profiler agent starts in every
// stage), connects them, lets them train, and merges what they did into truth.json.
#include <string>
#include <vector>

#include "reference_engine/executor/engine_config.h"
#include "reference_engine/executor/stage_record.h"

namespace bubblescope::engine {

struct EngineOutcome {
  bool ok = false;
  std::string failure;              // one line, when !ok (a stage failed, interrupted, timed out)
  std::vector<StageRecord> stages;  // when ok: what each stage did, as config.truthPath says
};

// Throws std::invalid_argument for a configuration the engine cannot run (validate()).
EngineOutcome runEngine(const EngineConfig& config);

}  // namespace bubblescope::engine
