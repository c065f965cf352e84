#pragma once
// A chain of ranks read as a V (analysis.md §1b): the message types and ops of the traffic
// (v_reading.h), the Ws placed where a known V schedule runs them (v_schedule.h), and every
// stretch of compute cut into its ops (stretch_split.h). The traffic of a chain with twice the
// microbatches reads as a V as well, so a V whose order is no known V schedule's is not taken
// for one: the chain reading stands, and says a V reads like it. Pure.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "analyzer/infer/stretch_split.h"
#include "analyzer/infer/v_stage.h"

namespace bubblescope::analysis {

struct VStageOps {
  std::vector<SplitOp> ops;                            // in the stage's units
  std::vector<std::pair<int64_t, int64_t>> other;      // stretches (or heads) no op explains
  std::unordered_map<int32_t, VCarried> messageOfRow;  // what each transfer call carried
};

struct VPipeline {
  bool isV = false;
  std::string why;       // why not
  std::string schedule;  // the known V schedule whose order every step has
  int m = 0;             // microbatches per step
  std::vector<VStageOps> stages;
  int guessedCosts = 0;  // op types a stage never showed alone, costed from a neighbour or evenly
};

// `slack[s]`: see splitStretches (a stage's units: 0 launches, or the host's call gap).
VPipeline readVPipeline(const std::vector<VStage>& stages, const std::vector<int64_t>& slack);

}  // namespace bubblescope::analysis
