#pragma once
// The execution model: what every rank's CPU thread and GPU streams did when a JobSpec ran, as
// PyTorch's Schedule1F1B, ScheduleZBVZeroBubble or ScheduleInterleaved1F1B drives
// ProcessGroupNCCL (our model of that stack, not a trace of it):
// - the CPU thread runs ahead of the GPU: it enqueues each op's kernels on the compute stream
//   and its sends and receives in batches (batch_isend_irecv). 1F1B: an op's output is sent
//   together with the next op's input when both go to the same peer (fwd_send_bwd_recv,
//   bwd_send_fwd_recv), else alone (and always alone without JobSpec::fuseP2p). ZB-V and
//   interleaved 1F1B: each send and receive alone, a pair's messages in the order both sides
//   share (p2p_order.h). A batch is one NCCL group: one call per send or receive, then one
//   fused ncclDevKernel_SendRecv on the stream of that pair of ranks;
// - a batch's kernel starts when its stream is free and, if it sends, when the compute that made
//   the data is done; it then spins until the peer's matching batch kernel has started, the
//   transfer runs, and both kernels end when it is done. The compute that needs received data
//   waits on the batch (cudaStreamWaitEvent);
// - each step ends in a grad-norm all-reduce over the pipeline's stages (every rank's kernel spins
//   until the last rank's has started), which the CPU waits for (`.item()`), then the optimizer.
// Times are true times (ns since the epoch); writers add each rank's clock skew.
#include <cstdint>
#include <string>
#include <vector>

#include "tests/tracegen/pp_job.h"

namespace bubblescope::tracegen {

enum class HostKind : uint8_t {
  ProfilerStep,  // the training loop's step (ProfilerStep#N)
  PipelineOp,    // the op's record_function (PP:...)
  CommCall,      // one NCCL call (record_param_comms and the nccl:* title)
  PipelineComm,  // the send or receive action's record_function (PP:...SEND_F...) around its call
  Coalesced,     // the end of a batch of several calls, where its fused kernel is launched
  Optimizer,     // Optimizer.step#...
};

struct HostRange {
  TimeNs start = 0, end = 0;
  HostKind kind = HostKind::PipelineOp;
  int index = 0;  // ProfilerStep: the step; PipelineOp: into ops; CommCall, PipelineComm: into
                  // calls; Coalesced: into batches
};

// A CUDA API call on the CPU thread: a launch (its kernel has the same correlation) or a sync.
struct ApiCall {
  TimeNs start = 0, end = 0;
  bool launch = true;  // false: cudaStreamSynchronize
  uint32_t correlation = 0;
};

enum class KernelKind : uint8_t { Compute, SendRecv, AllReduce, Optimizer };

struct Kernel {
  TimeNs start = 0, end = 0;
  KernelKind kind = KernelKind::Compute;
  int stream = 0;  // 0 compute, 1 collectives, 2 + peer rank: that pair's p2p stream (2 + p +
                   // batch: the batch's own, JobSpec::p2pStreamsQueue)
  uint32_t correlation = 0;
  int owner = -1;            // Compute: into ops; SendRecv: into batches; AllReduce: into calls;
                             // Optimizer: the step
  TimeNs transferStart = 0;  // SendRecv, AllReduce: when the data began to move (wait before)
};

enum class CallKind : uint8_t { Send, Recv, AllReduce };

struct NcclCall {
  CallKind kind = CallKind::Send;
  int peer = -1;  // global rank of the other side (send, recv)
  // What a send/recv carries: activations (F) or gradients (BW, or B under ZB-V), of the
  // microbatch, and the chunk of this side's op (the same on both sides but where interleaving's
  // loop wraps from the last stage's chunk 0 to stage 0's chunk 1: p2p_order.h's inputOf).
  PassKind pass = PassKind::F;
  int mb = 0, chunk = 0, step = 0;
  uint64_t seq = 0;  // per process group and kind, from 1 (as c10d numbers them)
  uint64_t bytes = 0;
  int kernel = -1;  // into kernels
  int batch = -1;   // send, recv: into batches
};

struct OpRun {
  OpId id;
  int firstKernel = 0, lastKernel = 0;  // into kernels, inclusive
  TimeNs ready = 0;  // when its stream and inputs would have let it start (launch aside)
};

struct RankTimeline {
  int rank = 0;  // global: rankOf(spec, replica, stage)
  std::vector<HostRange> ranges;
  std::vector<ApiCall> api;
  std::vector<Kernel> kernels;
  std::vector<NcclCall> calls;
  std::vector<std::vector<int>> batches;  // the calls of each p2p batch, in posting order
  std::vector<OpRun> ops;
};

struct JobTimeline {
  JobSpec spec;
  std::vector<RankTimeline> ranks;
};

// Runs the model. Throws std::logic_error if the spec deadlocks (a bug in the model).
JobTimeline execute(const JobSpec& spec);

// Each op's device cost in this job (faults and jitter applied), by op and DP replica.
TimeNs opCost(const JobSpec& spec, const OpId& op, int replica = 0);

}  // namespace bubblescope::tracegen
