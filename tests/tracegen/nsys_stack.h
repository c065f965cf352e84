#pragma once
// A generated job as Nsight Systems records torch.distributed.pipelining on ProcessGroupNCCL:
// `nsys profile --trace=cuda,nvtx torchrun ...` on every host, then
// `nsys export --type sqlite --include-json=true` (without --include-json or --include-blobs nsys
// drops NCCL's payloads, and with them every peer).
//
// Files: one export per host, each local rank a process of it. nsys captures the process tree it
// launched, so over torchrun one report holds all of a host's ranks (the public 2-GPU torchrun
// export in shared/data is one file with two processes); a multi-node job run as
// `srun nsys profile -o node%h torchrun ...` leaves one report per node, which is what a user
// brings. ranksPerHost = 1 is the other common layout, one report per rank
// (`srun nsys profile python train.py`, NeMo's per-rank profiling); ranksPerHost >= p one report
// for the whole job.
//
// Clocks: nsys stamps every process of a host with that host's clock, so the ranks of one host
// share its skew, JobSpec::clockSkew of the host's first rank (the others' are not used), and
// hosts differ by theirs. Event times are the host's monotonic clock (as in real exports:
// seconds of uptime); TARGET_INFO_SESSION_START_TIME pairs it with the host's wall clock (true
// time + skew) at the start of the capture, a few seconds before the first step.
//
// Each process, as the execution model's CPU thread, except that the backward's kernels are
// launched by the autograd engine's device thread as in real torch (NsysOptions::autogradThread):
// - CUDA: kernels (StringIds names as nsys demangles them); cudaLaunchKernel for compute,
//   cuLaunchKernelEx (driver) for NCCL's kernels; the cudaEventRecord/cudaStreamWaitEvent NCCL
//   makes in ncclGroupEnd; cudaStreamSynchronize (+ its SYNCHRONIZATION row) for the grad norm's
//   .item().
// - torch's NVTX: Labels::EmitNvtx, what torch.autograd.profiler.emit_nvtx() makes of the
//   record_functions ("PP:0F1, op_id = 812", "aten::mm, seq = 40, op_id = 813",
//   "record_param_comms, op_id = 9", "Optimizer.step#AdamW.step, op_id = 90"); or
//   Labels::Bubblescope, the convention our docs ask for ("F mb=1", "BW mb=1", "optimizer").
//   Steps: the training loop's own torch.cuda.nvtx start/end range "step 3" (ProfilerStep#N
//   exists only while torch.profiler records), opening a little into the step's first op as
//   JobSpec::stepRangeLag says.
// - NCCL's own NVTX (domain "NCCL", registered names, payloads of NCCL's static schemas, as JSON,
//   as blobs or dropped: NsysOptions::payloads): ncclCommInitRankConfig per
//   communicator before the first step ({communicator, No. of ranks, Rank, CUDA device}); per
//   batch (batch_isend_irecv) ncclGroupStart, one ncclSend/ncclRecv per call ({communicator,
//   Message size, Peer rank}), ncclGroupEnd holding the fused kernel's launch; ncclAllReduce
//   holding its own.
//
// Communicators: the all-reduce runs on the pipeline group's. Point to point, P2pComms::Pairs:
// ProcessGroupNCCL's 2-rank communicator per pair (peer 0 or 1; one NCCL stream per pair, as the
// execution model has it); P2pComms::Group: the group's communicator (peer = the peer's rank in
// it), which torch >= 2.1 selects for p2p inside a group, as batch_isend_irecv makes them
// (ProcessGroupNCCL::pointToPoint, its batchP2P branch).
#include <filesystem>
#include <vector>

#include "tests/tracegen/execution.h"
#include "tests/tracegen/nsys_export.h"

namespace bubblescope::tracegen {

struct NsysOptions {
  enum class Labels { EmitNvtx, Bubblescope };
  enum class P2pComms { Pairs, Group };
  int ranksPerHost = 2;
  Labels labels = Labels::EmitNvtx;
  P2pComms p2p = P2pComms::Pairs;
  // false: the capture began after NCCL set up (--capture-range=cudaProfilerApi), so the export
  // has neither NCCL's NvtxDomainCreate row nor its communicators' creation.
  bool ncclSetupCaptured = true;
  // The backward's launches (and emit_nvtx's aten ranges around them) on the autograd engine's
  // device thread, as torch runs them; its PP range stays on the main thread.
  bool autogradThread = true;
  // Json: exported with --include-json=true; Blobs: with --include-blobs=true; None: with neither
  // (nsys's default): NCCL's ranges lose their payloads, and with them every peer, communicator
  // and size.
  NsysPayloads payloads = NsysPayloads::Json;
};

// Writes one export per host into `dir` ("node0.sqlite", "node1.sqlite", ...) and returns them.
std::vector<std::filesystem::path> writeNsysExports(const JobTimeline& job,
                                                    const std::filesystem::path& dir,
                                                    const NsysOptions& options = {});

}  // namespace bubblescope::tracegen
