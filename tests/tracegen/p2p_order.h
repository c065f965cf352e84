#pragma once
// When a rank of a schedule with several chunks per stage (ZB-V, interleaved 1F1B) posts its sends
// and receives. NCCL pairs the messages between two ranks in the order each side posts them, and a
// pair's kernels run one after another on the pair's stream, so both sides must post the pair's
// messages in one order or they wait on each other for ever (ZB-V: stage s sends chunk 0's
// activation of microbatch 2p - 2 - s before it needs chunk 1's, while stage s + 1 sends that
// chunk-1 activation before it needs the chunk-0 one). As torch's
// PipelineScheduleMulti does, a receive is posted at the step of the schedule where its sender
// sends: the pair's order is the time step (every op one unit, as early as its inputs allow) of the
// op that makes the data.
#include <utility>
#include <vector>

#include "tests/tracegen/pp_job.h"

namespace bubblescope::tracegen {

struct RankAction {
  enum Kind { Run, Send, Recv } kind = Run;
  // Run: the op; Send/Recv: the message, named by the op of this rank that makes or uses it
  // (the sender's chunk and the receiver's differ where the looped layout wraps round)
  StageOp op;
  int peer = -1;  // Send/Recv
};

// Rank r's ops in order, each receive before the op that needs it and each send after the op that
// makes it, the messages of each pair in the one order both sides share (JobSpec::sharedP2pStream:
// all of the rank's messages in the one order all ranks share).
std::vector<RankAction> multiChunkProgram(const JobSpec& spec, int r);

// The op of another stage that makes an op's input: the same pass and microbatch on the virtual
// stage before (a forward) or after (a backward), with that virtual stage's chunk. stage -1: none
// (the model's first forward, the loss's backward, a W) or its own stage (ZB-V's turn on the last
// stage, where chunk 0 hands to chunk 1).
struct PeerOp {
  int stage = -1;
  StageOp op;
};
PeerOp inputOf(const JobSpec& spec, int r, const StageOp& o);
// The op of another stage that takes an op's output (the same cases mirrored).
PeerOp outputOf(const JobSpec& spec, int r, const StageOp& o);

// Each direction of every pair of stages the job's data crosses, down the virtual stages: s -> s +
// 1 and back for each s, then (interleaved) the loop's wrap, p - 1 -> 0 and back.
std::vector<std::pair<int, int>> links(const JobSpec& spec);

// The stages `stage` exchanges data with, ascending: its neighbours, and under interleaving the
// loop's other end (stage 0 and p - 1).
std::vector<int> peers(const JobSpec& spec, int stage);

// The stage an op's input comes from or its output goes to, or -1 (inputOf, outputOf).
int inputPeer(const JobSpec& spec, int r, const StageOp& o);
int outputPeer(const JobSpec& spec, int r, const StageOp& o);

}  // namespace bubblescope::tracegen
