#pragma once
// One stage's point-to-point traffic read as a V placement's (ZB-V; analysis.md §1b). Rank s
// holds model chunk 0 (virtual stage s) and chunk 1 (virtual stage 2p-1-s), so the links of a
// chain carry four kinds of message: towards the last rank, chunk 0's activations (A0) and
// chunk 1's input gradients (G1); towards rank 0, chunk 1's activations (A1) and chunk 0's
// gradients (G0). A V moves exactly what a chain of twice the microbatches moves on every link,
// so counts cannot tell them apart, and messages cannot be followed across ranks either (a rank
// may take its inputs in another order than they were sent). What does tell is each rank's own
// order of calls: a job sends an op's output right after the op, so a V schedule's order of ops
// fixes each rank's order of sends, and its receives take what its neighbours sent, in that
// order. Where the calls are those orders, repeated, every op is placed between them: the Ws too,
// which show in no traffic. Pure.
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/infer/op_segments.h"
#include "reference_engine/schedule/op.h"

namespace bubblescope::analysis {

enum class VMessage : uint8_t { None, A0, G1, A1, G0 };

// What one call carried: the message and the microbatch it is for (-1: not known).
struct VCarried {
  VMessage message = VMessage::None;
  int mb = -1;
  bool operator==(const VCarried&) const = default;
};

// One point-to-point call of a stage, in posting order. `group`: the calls posted together carry
// the same group number, increasing; the compute between group g-1 and group g is stretch g.
struct VCall {
  CutKind kind = CutKind::Other;  // ActIn: from the previous rank; GradIn: from the next; ...
  int group = 0;
};

// One op, in the stretch it ran in.
struct VOp {
  engine::OpKind kind = engine::OpKind::F;
  int chunk = 0;
  int stretch = 0;
  int mb = -1;  // within its step
  bool operator==(const VOp&) const = default;
};

struct VStageReading {
  bool matched = false;
  int repeats = 0;                 // times the pattern ran (steps)
  int receivedRightBefore = 0;     // ops that run right after the receive of their input
  std::vector<VOp> ops;            // every op of every repeat, in order
  std::vector<VCarried> messages;  // what each call carried (same order as the calls)
};

// Messages in one step, in order, by the way they travel: `down` towards the last rank, `up`
// towards rank 0.
struct VLinks {
  std::vector<VMessage> down, up;
};

// What a stage of a V sends in one step of `pattern` (its ops in one step of a V schedule).
VLinks sendsOf(const std::vector<engine::Op>& pattern, int stage, int p);
// ... and the inputs its ops take from each neighbour (down: from the previous rank), in the
// order of its ops.
VLinks inputsOf(const std::vector<engine::Op>& pattern, int stage, int p);

// `calls`: stage `stage` of `p`, in posting order (a group's sends before its receives).
// `pattern`: the stage's ops in one step of a V schedule. `incoming`: what its receives take, in
// order: its neighbours' sends (NCCL pairs a link's messages in the order they were sent, so a
// job may post a receive early, before the op that needs it), or its own ops' inputs (a job whose
// receives take messages by their label). Its sends must be the pattern's, in order; every op is
// placed in the stretch before the send it feeds, else as early as the op before it, the send
// before it and its own receive allow.
VStageReading readStageAs(const std::vector<engine::Op>& pattern, int stage, int p,
                          const std::vector<VCall>& calls, const VLinks& incoming);

// The pass (F: activations, B: gradients) and chunk a message is for.
engine::OpKind passOf(VMessage m);
int chunkOf(VMessage m);

}  // namespace bubblescope::analysis
