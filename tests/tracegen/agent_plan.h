#pragma once
// A generated job as a program instrumented for the capture agent runs it, rank by rank: NVTX
// ranges in the bubblescope convention ("step 2", "F mb=3", "BW mb=3", "optimizer"), the p2p
// batches as NCCL calls on a two-rank communicator per pair of stages (as ProcessGroupNCCL makes
// them: a batch of one call is a plain ncclSend/ncclRecv, a larger one an NCCL group whose
// ncclGroupEnd launches the fused kernel), the grad-norm all-reduce on the pipeline's
// communicator, cudaLaunchKernel for compute and optimizer kernels (a backward's from the autograd
// engine's device thread, as torch launches them), cudaStreamSynchronize for
// .item(), and a final device synchronisation. Every time is on the rank's clock (its skew added).
#include "tests/tracegen/execution.h"
#include "tests/tracegen/replay_plan.h"

namespace bubblescope::tracegen {

// Times are ns after job.spec.start. Pure.
ReplayPlan agentReplayPlan(const JobTimeline& job, int rank);

// CUPTI's stream id of a generator stream (0 compute, 1 collectives, 2 + peer: that pair's p2p).
uint32_t cuptiStreamOf(int stream);

}  // namespace bubblescope::tracegen
