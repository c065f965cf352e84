#pragma once
// A generated job as PyTorch's profiler (Kineto) writes it for torch.distributed.pipelining on
// ProcessGroupNCCL: one JSON per rank with ProfilerStep#N, `PP:` record_function ranges on the
// CPU and their gpu_user_annotation spans on the compute stream, aten ops launching GEMM kernels,
// record_param_comms (Collective name, Src/Dst Rank, process group, Seq) around each NCCL call
// with its nccl:send/recv/all_reduce title, ncclDevKernel_SendRecv / _AllReduce kernels carrying
// the collective's metadata, cudaStreamSynchronize for the grad norm's .item(), the optimizer.
// The backward's kernels are launched from the autograd thread (KinetoOptions::autogradThread).
// Each rank's timestamps carry its clock skew.
#include <string>

#include "tests/tracegen/execution.h"

namespace bubblescope::tracegen {

struct KinetoOptions {
  bool gpuAnnotations = true;  // gpu_user_annotation events (torch >= 2.1 writes them)
  TimeNs base = 0;             // baseTimeNanoseconds; 0 = absolute epoch microseconds
  // The backward's aten ops and kernel launches on the autograd engine's device thread
  // ("pt_autograd_0"), as torch runs them, while its PP range stays on the main thread.
  bool autogradThread = true;
  // Not 0: the job hung at this true time and the profiler collected `collectedAfter` later (an
  // on-demand trace of a hung job, or one taken as its watchdog fired). What began after the hang
  // is not in the trace, CPU ops still open then are not written, kernels still running have no
  // record (their launches stay), and "Record Window End" says when the collection ended.
  TimeNs hangAt = 0;
  TimeNs collectedAfter = 5'000'000'000;
  // Not 0: the profiler's active window opened at this true time, mid-step (torch.profiler's
  // schedule records from its warm-up and keeps what began inside the window). What began before
  // it is not in the trace: the step's range, ranges, CPU ops, launches and NCCL calls made
  // before it, kernels that started before it. The kernels those calls launched that started
  // inside it are, with no call and no launch: only the collective's args Kineto copies onto them.
  TimeNs windowStart = 0;
};

std::string kinetoRankJson(const JobTimeline& job, int rank, const KinetoOptions& options = {});

}  // namespace bubblescope::tracegen
