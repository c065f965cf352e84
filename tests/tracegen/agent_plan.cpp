#include "tests/tracegen/agent_plan.h"

#include "tests/tracegen/memory_model.h"
#include "tests/tracegen/op_labels.h"
#include "tests/tracegen/p2p_order.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <unordered_map>

namespace bubblescope::tracegen {
namespace {

// What torch's kernels are called: plain cuBLAS names and mangled ATen templates, which the
// agent demangles.
const char* kComputeKernels[] = {
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
    "segment_k_off_kernel__5x_cublas",
    "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_13BUnaryFunctorIfffNS0_15binary_"
    "internal10MulFunctorIfEEEESt5arrayIPcLm2EEEEviT0_T1_",
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_"
    "segment_k_off_kernel__5x_cublas",
    "_ZN2at6native12_GLOBAL__N_128vectorized_layer_norm_kernelIN3c108BFloat16EfEEviT0_PKT_S8_S8_"
    "PS5_S9_PS6_"};
const char* kOptimizerKernel =
    "_ZN2at6native12_GLOBAL__N_125multi_tensor_apply_kernelINS1_18TensorListMetadataILi4EEENS1_"
    "20FusedAdamMathFunctorIfLi4ELNS0_9ADAM_MODEE1ELb0EEEJPfddddddbS9_S9_EEEvT_T0_DpT1_";

// A cudaStream_t as a program holds one: an address, here made from CUPTI's id.
uint64_t streamHandle(int stream) {
  return 0x7f3a00000000ull + cuptiStreamOf(stream);
}

class Planner {
 public:
  Planner(const JobTimeline& job, int rank) : job_(job), tl_(job.ranks.at(rank)) {
    const JobSpec& s = job.spec;
    skew_ = rank < static_cast<int>(s.clockSkew.size()) ? s.clockSkew[rank] : 0;
    plan_.rank = rank;
    plan_.worldSize = s.p;
    plan_.device = static_cast<uint32_t>(rank % 8);
    // The pipeline's communicator, then one per peer: ranks within a pair are ordered by
    // global rank, as torch orders a p2p communicator's two members.
    plan_.comms.push_back({"pipeline", s.p, rank});
    for (int peer : peers(s, rank)) {
      const int lo = std::min(rank, peer), hi = std::max(rank, peer);
      commOfPeer_[peer] = static_cast<int>(plan_.comms.size());
      plan_.comms.push_back(
          {"p2p:" + std::to_string(lo) + ":" + std::to_string(hi), 2, rank == lo ? 0 : 1});
    }
    for (size_t i = 0; i < tl_.kernels.size(); ++i)
      kernelOf_[tl_.kernels[i].correlation] = static_cast<int>(i);
  }

  ReplayPlan run() {
    for (size_t i = 0; i < tl_.ranges.size(); ++i) range(i);
    for (const ApiCall& a : tl_.api) api(a);
    // The caching allocator's cudaMalloc and cudaFree calls (memory_model.h).
    for (const AllocatorCall& c : allocatorCalls(job_, tl_.rank)) {
      if (c.segmentBytes == 0) continue;
      ReplayAction a = at(c.time, c.segmentBytes > 0 ? ReplayVerb::Malloc : ReplayVerb::Free);
      a.count = static_cast<uint64_t>(std::abs(c.segmentBytes));
      a.stream = c.address;
      plan_.actions.push_back(a);
    }
    if (job_.spec.recordMemory) plan_.deviceMemory = job_.spec.deviceMemory;
    // Equal times keep the order they were added in: a group's start before its first call.
    std::stable_sort(plan_.actions.begin(), plan_.actions.end(),
                     [](const ReplayAction& a, const ReplayAction& b) { return a.at < b.at; });
    // The program ends by waiting for its GPU, so every kernel ran before it exits.
    TimeNs lastEnd = 0;
    for (const Kernel& k : tl_.kernels) lastEnd = std::max(lastEnd, k.end);
    ReplayAction done = at(tl_.ranges.back().end + 1'000, ReplayVerb::Sync);
    done.until = std::max(done.at, time(lastEnd)) + 10'000;
    done.text = "cudaDeviceSynchronize";
    plan_.actions.push_back(done);
    return std::move(plan_);
  }

 private:
  TimeNs time(TimeNs t) const { return t - job_.spec.start + skew_; }

  ReplayAction at(TimeNs t, ReplayVerb verb) const {
    ReplayAction a;
    a.at = time(t);
    a.verb = verb;
    return a;
  }

  ReplayKernel kernel(int index) const {
    const Kernel& k = tl_.kernels.at(index);
    return {time(k.start), time(k.end), cuptiStreamOf(k.stream)};
  }

  void push(TimeNs t, std::string name) {
    ReplayAction a = at(t, ReplayVerb::Push);
    a.text = std::move(name);
    plan_.actions.push_back(std::move(a));
  }

  void pop(TimeNs t) { plan_.actions.push_back(at(t, ReplayVerb::Pop)); }

  void range(size_t i) {
    const HostRange& h = tl_.ranges[i];
    switch (h.kind) {
      case HostKind::ProfilerStep: {
        // A push/pop range cannot open inside the first op and outlive it, so the step's range
        // opens where the loop begins the step, before its first action: stepRangeLag is a trait
        // of torch.profiler's ProfilerStep, not of an NVTX step range.
        const TimeNs next = i + 1 < tl_.ranges.size() ? tl_.ranges[i + 1].start : h.start;
        push(std::min(h.start, next - 1), "step " + std::to_string(h.index));
        pop(h.end);
        return;
      }
      case HostKind::PipelineOp:
        push(h.start, bubblescopeOpLabel(job_.spec, tl_.ops.at(h.index).id));
        pop(h.end);
        return;
      case HostKind::PipelineComm:
        push(h.start, bubblescopeCommLabel(job_.spec, tl_.calls.at(h.index)));
        pop(h.end);
        return;
      case HostKind::Optimizer:
        push(h.start, "optimizer");
        pop(h.end);
        return;
      case HostKind::CommCall:
        call(h);
        return;
      case HostKind::Coalesced: {
        const std::vector<int>& batch = tl_.batches.at(h.index);
        ReplayAction end = at(h.start, ReplayVerb::GroupEnd);
        end.kernel = kernel(tl_.calls.at(batch.front()).kernel);
        plan_.actions.push_back(end);
        return;
      }
    }
  }

  void call(const HostRange& h) {
    const NcclCall& c = tl_.calls.at(h.index);
    if (c.kind == CallKind::AllReduce) {
      ReplayAction a = at(h.start, ReplayVerb::AllReduce);
      a.comm = 0;
      a.count = c.bytes / 4;  // fp32
      a.stream = streamHandle(tl_.kernels.at(c.kernel).stream);
      a.kernel = kernel(c.kernel);
      plan_.actions.push_back(a);
      return;
    }
    const std::vector<int>& batch = tl_.batches.at(c.batch);
    const bool grouped = batch.size() > 1;
    if (grouped && batch.front() == h.index)
      plan_.actions.push_back(at(h.start, ReplayVerb::GroupStart));
    ReplayAction a = at(h.start, c.kind == CallKind::Send ? ReplayVerb::Send : ReplayVerb::Recv);
    a.comm = commOfPeer_.at(c.peer);
    a.peer = 1 - plan_.comms[a.comm].rank;
    a.count = c.bytes / 2;  // bf16 activations and gradients
    a.stream = streamHandle(tl_.kernels.at(c.kernel).stream);
    if (!grouped) a.kernel = kernel(c.kernel);
    plan_.actions.push_back(a);
  }

  void api(const ApiCall& a) {
    if (!a.launch) {
      ReplayAction sync = at(a.start, ReplayVerb::Sync);
      sync.until = time(a.end);
      sync.text = "cudaStreamSynchronize";
      plan_.actions.push_back(sync);
      return;
    }
    const int index = kernelOf_.at(a.correlation);
    const Kernel& k = tl_.kernels[index];
    // NCCL's kernels are launched by the NCCL calls themselves.
    if (k.kind != KernelKind::Compute && k.kind != KernelKind::Optimizer) return;
    // torch's autograd engine launches a backward's kernels from its device thread.
    const bool backward = k.kind == KernelKind::Compute && k.owner >= 0 &&
                          isBackward(tl_.ops[static_cast<size_t>(k.owner)].id.pass);
    ReplayAction launch = at(a.start, backward ? ReplayVerb::AutogradLaunch : ReplayVerb::Launch);
    launch.kernel = kernel(index);
    launch.text =
        k.kind == KernelKind::Optimizer ? kOptimizerKernel : kComputeKernels[k.correlation % 4];
    plan_.actions.push_back(launch);
  }

  const JobTimeline& job_;
  const RankTimeline& tl_;
  TimeNs skew_ = 0;
  ReplayPlan plan_;
  std::map<int, int> commOfPeer_;
  std::unordered_map<uint32_t, int> kernelOf_;  // correlation -> kernel
};

}  // namespace

uint32_t cuptiStreamOf(int stream) {
  // PyTorch's default compute stream is 7; NCCL's internal streams come after it.
  return stream == 0 ? 7u : static_cast<uint32_t>(20 + stream);
}

ReplayPlan agentReplayPlan(const JobTimeline& job, int rank) {
  return Planner(job, rank).run();
}

}  // namespace bubblescope::tracegen
