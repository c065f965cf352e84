#pragma once
// Cuts each stretch of compute between calls into the ops a reading of the traffic put there
// (v_reading.h, v_schedule.h), in proportion to what one op of each kind and chunk costs on the
// stage: kernels launched, or host time. A cost is learned from the stretches that hold one op
// alone (the median: a stalled one does not move it), then from those that hold one op besides
// ops already learned; what the stage never shows alone comes from a neighbouring stage, else the
// ops share the stretch evenly. A stretch that no transfer opened (the first forward after the
// optimizer) holds other work before its ops: it keeps only as much as its ops cost. Pure.
#include <array>
#include <cstdint>
#include <vector>

#include "analyzer/infer/v_reading.h"

namespace bubblescope::analysis {

// A stretch in the stage's units: launches [begin, end) of its sorted compute launches, or host
// time [begin, end) in ns.
struct StretchSpan {
  int64_t begin = 0, end = 0;
  bool openedByTransfer = true;
};

// Costs per op type, typeOf(kind, chunk): F, B (or BW), W of chunk 0 and 1. 0 = unknown.
using OpCosts = std::array<int64_t, 6>;
int typeOf(engine::OpKind kind, int chunk);

struct SplitOp {
  VOp op;
  int64_t begin = 0, end = 0;
};

// `ops` in order, each naming its stretch (an index into `spans`).
OpCosts learnCosts(const std::vector<StretchSpan>& spans, const std::vector<VOp>& ops);

// `costs`: this stage's, with what it lacks filled from a neighbour's. `slack`: what a stretch
// opened by no transfer may hold beyond its ops' cost before the excess counts as other work.
std::vector<SplitOp> splitStretches(const std::vector<StretchSpan>& spans,
                                    const std::vector<VOp>& ops, const OpCosts& costs,
                                    int64_t slack);

}  // namespace bubblescope::analysis
