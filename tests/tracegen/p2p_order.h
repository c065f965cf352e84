#pragma once
// When a ZB-V rank posts its sends and receives. NCCL pairs the messages between two ranks in the
// order each side posts them, and a pair's kernels run one after another on the pair's stream, so
// both sides must post the pair's messages in one order or they wait on each other for ever (stage
// s sends chunk 0's activation of microbatch 2p - 2 - s before it needs chunk 1's, while stage s +
// 1 sends that chunk-1 activation before it needs the chunk-0 one). As torch's
// PipelineScheduleMulti does, a receive is posted at the step of the schedule where its sender
// sends: the pair's order is the time step (every op one unit, as early as its inputs allow) of the
// op that makes the data.
#include <vector>

#include "tests/tracegen/pp_job.h"

namespace bubblescope::tracegen {

struct RankAction {
  enum Kind { Run, Send, Recv } kind = Run;
  StageOp op;     // Run: the op; Send/Recv: the message, named by the op that makes and uses it
  int peer = -1;  // Send/Recv
};

// Rank r's ops in order, each receive before the op that needs it and each send after the op that
// makes it, the messages of each pair in the one order both sides share.
std::vector<RankAction> zbVProgram(const JobSpec& spec, int r);

// The stage an op's input comes from, or -1: none (the model's first forward, the loss's
// backward, a W) or its own (ZB-V's turn on the last stage, where chunk 0 hands to chunk 1).
int inputPeer(const JobSpec& spec, int r, const StageOp& o);
// The stage an op's output goes to, or -1 (the same cases mirrored).
int outputPeer(const JobSpec& spec, int r, const StageOp& o);

}  // namespace bubblescope::tracegen
