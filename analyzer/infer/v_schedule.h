#pragma once
// The known V schedules a chain's traffic is held against (v_reading.h): ZB-V, for the number of
// microbatches that makes every stage's calls its order repeated, each stage's receives taking
// what its neighbours sent in the order they sent it (NCCL's pairing) or in the order its own ops
// need it (a job that receives by label). Pure.
#include <string>
#include <vector>

#include "analyzer/infer/v_reading.h"

namespace bubblescope::analysis {

struct VScheduleMatch {
  bool matched = false;
  std::string name;                             // "ZB-V"
  int m = 0;                                    // microbatches per step
  int steps = 0;                                // repeats of the schedule found
  std::vector<std::vector<VOp>> ops;            // per stage, every op, Ws included
  std::vector<std::vector<VCarried>> messages;  // per stage, what each call carried
};

// `stages[s]`: stage s's calls in posting order, the stages in chain order.
VScheduleMatch matchVSchedule(const std::vector<std::vector<VCall>>& stages);

// Whether a chain reading (forwards and backwards per stage, in order) is a known chain schedule's
// order (1F1B, GPipe) repeated, `m` microbatches a step. Small jobs read both ways (a 2-stage 1F1B
// of 4 microbatches moves exactly what a 2-stage ZB-V of 2 does): the chain, far more common, is
// taken then.
bool isKnownChainOrder(const std::vector<std::vector<engine::OpKind>>& kinds, int m);

}  // namespace bubblescope::analysis
