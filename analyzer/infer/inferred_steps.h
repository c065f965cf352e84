#pragma once
// The last touch on a rank whose ops were inferred: its steps (from markers, else from the
// collectives that end each step, else from the microbatch count that repeats: step_pattern.h)
// and its microbatches, numbered in order.
#include "analyzer/recognize/recognized.h"
#include "traces/model/trace.h"

namespace bubblescope::analysis {

// An NCCL call that moves data (not a group boundary, not communicator set-up).
inline bool isNcclTransferCall(traces::NcclOp op) {
  using traces::NcclOp;
  return op != NcclOp::Unknown && op != NcclOp::GroupStart && op != NcclOp::GroupEnd &&
         op != NcclOp::CommInitRank && op != NcclOp::CommSplit && op != NcclOp::CommDestroy;
}
// ... one that every member of a communicator joins (an all-reduce, not a send).
inline bool isNcclCollective(traces::NcclOp op) {
  return isNcclTransferCall(op) && op != traces::NcclOp::Send && op != traces::NcclOp::Recv;
}

// `microbatches`: forwards per step as the pipeline's first stage shows them (0: unknown).
void cutInferredSteps(const traces::RankTrace& t, RankOps& ops, int microbatches);

}  // namespace bubblescope::analysis
