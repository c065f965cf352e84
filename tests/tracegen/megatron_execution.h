#pragma once
// The execution model of a MegatronJob: what every rank did, op by op, as Megatron-LM's
// 1F1B schedules run it and NDTimeline records it:
// - interleaved (v > 1, forward_backward_pipelining_with_interleaving): the op order of Megatron's
//   get_model_chunk_id / microbatch numbering; receives block, sends are asynchronous (isend:
//   the sender goes on; its event is the transfer, once the receiver has posted);
// - each (DP replica, stage) runs warm-up forwards, the 1F1B steady state with the fused
//   send_forward_recv_backward / send_backward_recv_forward, and the cool-down backwards;
// - a point-to-point batch posts its transfers at once; each transfer starts when both sides have
//   posted (rendezvous) and takes `transfer`; the batch returns when its transfers are done. The
//   recorded comm event spans only the data movement (from its last transfer's start to its last
//   transfer's end): the exporter cut the waiting off;
// - the TP ranks of a stage start an op up to tpSkew apart, each runs its own cost, and the op's
//   closing tp-allreduce makes them all wait for the last; the next op starts after it;
// - the step's tail: grads-reduce-scatter over the DP group of each (stage, TP rank), the world's
//   grad-norm all-reduce (optimizer-clip-main-grad), optimizer-inner-step, params-all-gather;
//   each collective starts when its last member arrives.
// Times are ns; every op's TP-group span (first member's start to last member's end) is kept as
// the truth's op cost.
#include <string>
#include <vector>

#include "tests/tracegen/megatron_job.h"

namespace bubblescope::tracegen {

enum class NdThread : uint8_t { Compute, PpComm, TpComm, DpComm, Misc };

struct NdEvent {
  std::string_view name;  // a Megatron timer name (static storage)
  NdThread thread = NdThread::Compute;
  TimeNs start = 0, end = 0;
  int step = 0;
  int mb = -1, chunk = 0;
};

struct NdRank {
  int dp = 0, pp = 0, tp = 0, rank = 0;
  std::vector<NdEvent> events;
};

// One op of one TP group as the group ran it: kind 'F' or 'B'.
struct GroupOp {
  int dp = 0, pp = 0, step = 0, mb = 0, chunk = 0;
  char kind = 'F';
  TimeNs start = 0, end = 0;  // first member's start to last member's end
};

struct MegatronTimeline {
  MegatronJob job;
  std::vector<NdRank> ranks;  // by global rank
  std::vector<GroupOp> ops;
  std::vector<TimeNs> stepStart, stepEnd;  // the job's step spans
};

// Runs the model. Throws std::logic_error if the schedule deadlocks (a bug in the model).
MegatronTimeline executeMegatron(const MegatronJob& job);

// The job with every op at the given cost (per kind) and no faults: the ideal run.
MegatronTimeline executeMegatronIdeal(const MegatronJob& job, TimeNs costF, TimeNs costB);

}  // namespace bubblescope::tracegen
