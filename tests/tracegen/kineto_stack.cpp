#include "tests/tracegen/kineto_stack.h"

#include "tests/tracegen/memory_model.h"
#include "tests/tracegen/op_labels.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

namespace bubblescope::tracegen {
namespace {

// Kineto's number format: microseconds with three decimals.
std::string us(TimeNs ns) {
  const bool negative = ns < 0;
  if (negative) ns = -ns;
  std::string frac = std::to_string(ns % 1000);
  return (negative ? "-" : "") + std::to_string(ns / 1000) + "." +
         std::string(3 - frac.size(), '0') + frac;
}

const char* kComputeKernels[] = {
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
    "segment_k_off_kernel__5x_cublas",
    "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::"
    "TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::"
    "operator()() const::{lambda(c10::BFloat16)#1}, at::detail::Array<char*, 2> >(int, at::native::"
    "GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() "
    "const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, at::detail::Array<char*, "
    "2>)",
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_"
    "segment_k_off_kernel__5x_cublas",
    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, "
    "float>(int, "
    "float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, "
    "c10::BFloat16*)"};
const char* kComputeOps[] = {"aten::mm", "aten::gelu", "aten::mm", "aten::native_layer_norm"};
const char* kOptimizerKernel =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
    "namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<"
    "float, 4, (at::native::ADAM_MODE)1, false>, float*, double, double, double, double, double, "
    "double, bool, float*, float*>(at::native::(anonymous namespace)::TensorListMetadata<4>, "
    "at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, "
    "false>, float*, double, double, double, double, double, double, bool, float*, float*)";

class Writer {
 public:
  Writer(const JobTimeline& job, int rank, const KinetoOptions& o)
      : job_(job), tl_(job.ranks[rank]), o_(o), pid_(24000 + rank), device_(rank % 8) {
    skew_ = rank < static_cast<int>(job.spec.clockSkew.size()) ? job.spec.clockSkew[rank] : 0;
    for (const ApiCall& a : tl_.api) {
      if (a.launch) launches_[a.correlation] = &a;
    }
  }

  std::string json() {
    head();
    for (const HostRange& h : tl_.ranges) {
      if (!inWindow(h.start)) {
        if (h.kind == HostKind::CommCall) callsBeforeWindow_.insert(h.index);
        if (h.kind == HostKind::Coalesced) batchesBeforeWindow_.insert(h.index);
        continue;
      }
      if (before(h.end)) range(h);
    }
    for (const ApiCall& a : tl_.api) {
      if (!a.launch && before(a.end) && inWindow(a.start)) {
        event("cuda_runtime", "cudaStreamSynchronize", pid_, pid_, a.start, a.end,
              "\"correlation\": " + std::to_string(90'000'000 + syncs_++) + ", \"cbid\": 131");
      }
    }
    for (const Kernel& k : tl_.kernels) kernel(k);
    if (o_.hangAt != 0) {
      add("{\"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\", \"pid\": \"\", "
          "\"tid\": \"\", \"ts\": " +
          ts(o_.hangAt + o_.collectedAfter) + "}");
    }
    for (const AllocatorCall& c : allocatorCalls(job_, tl_.rank)) {
      if (inWindow(c.time)) memory(c);
    }
    std::ostringstream doc;
    doc << "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": " << device_
        << ", \"name\": \"NVIDIA H100 80GB HBM3\", \"totalGlobalMem\": " << job_.spec.deviceMemory
        << ", "
           "\"computeMajor\": 9, \"computeMinor\": 0, \"numSms\": 132}],\n"
        << "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": " << tl_.rank
        << ", \"world_size\": " << worldSize(job_.spec) << ", \"pg_count\": 1, \"pg_config\": "
        << "[{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", \"backend_config\": \"cuda:nccl\", "
           "\"pg_size\": "
        << worldSize(job_.spec) << ", \"ranks\": " << ranks()
        << "}], \"nccl_version\": \"2.21.5\"},\n"
        << "  \"traceEvents\": [" << events_.str() << "\n  ],\n"
        << "  \"traceName\": \"rank" << tl_.rank << ".pt.trace.json\"";
    if (o_.base != 0) doc << ",\n  \"baseTimeNanoseconds\": " << o_.base;
    doc << "\n}\n";
    return doc.str();
  }

 private:
  std::string ranks() const {
    std::string s = "[";
    for (int r = 0; r < worldSize(job_.spec); ++r) s += (r ? ", " : "") + std::to_string(r);
    return s + "]";
  }

  // Whether something that ended (or happened) at `t` is in the trace: before the job hung.
  bool before(TimeNs t) const { return o_.hangAt == 0 || t <= o_.hangAt; }
  // Whether something that began at `t` is in the trace: inside the profiler's window.
  bool inWindow(TimeNs t) const { return o_.windowStart == 0 || t >= o_.windowStart; }

  void add(const std::string& e) {
    events_ << (first_ ? "\n    " : ",\n    ") << e;
    first_ = false;
  }

  std::string ts(TimeNs t) const { return us(t + skew_ - o_.base); }

  void event(const char* cat, const std::string& name, int pid, int tid, TimeNs start, TimeNs end,
             const std::string& args) {
    add(std::string("{\"ph\": \"X\", \"cat\": \"") + cat + "\", \"name\": \"" + name +
        "\", \"pid\": " + std::to_string(pid) + ", \"tid\": " + std::to_string(tid) +
        ", \"ts\": " + ts(start) + ", \"dur\": " + us(end - start) + ", \"args\": {" + args + "}}");
  }

  void head() {
    add("{\"name\": \"process_name\", \"ph\": \"M\", \"ts\": " + ts(job_.spec.start) +
        ", \"pid\": " + std::to_string(pid_) + ", \"tid\": 0, \"args\": {\"name\": \"python3\"}}");
    add("{\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": " + ts(job_.spec.start) +
        ", \"pid\": " + std::to_string(pid_) + ", \"tid\": " + std::to_string(pid_) +
        ", \"args\": {\"name\": \"thread " + std::to_string(pid_) + " (python3)\"}}");
    if (o_.autogradThread) {
      add("{\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": " + ts(job_.spec.start) +
          ", \"pid\": " + std::to_string(pid_) + ", \"tid\": " + std::to_string(autogradTid()) +
          ", \"args\": {\"name\": \"thread " + std::to_string(autogradTid()) +
          " (pt_autograd_0)\"}}");
    }
    for (int stream : streams()) {
      add("{\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": " + ts(job_.spec.start) +
          ", \"pid\": " + std::to_string(device_) +
          ", \"tid\": " + std::to_string(streamId(stream)) + ", \"args\": {\"name\": \"stream " +
          std::to_string(streamId(stream)) + "\"}}");
    }
  }

  std::vector<int> streams() const {
    std::vector<int> s;
    for (const Kernel& k : tl_.kernels) {
      if (std::find(s.begin(), s.end(), k.stream) == s.end()) s.push_back(k.stream);
    }
    return s;
  }

  int autogradTid() const { return pid_ + 7; }

  // The thread that launched kernel k: a backward's compute runs on the autograd thread.
  int launchTid(const Kernel& k) const {
    const bool backward = k.kind == KernelKind::Compute && k.owner >= 0 &&
                          isBackward(tl_.ops[static_cast<size_t>(k.owner)].id.pass);
    return o_.autogradThread && backward ? autogradTid() : pid_;
  }

  // CUDA stream ids as PyTorch's runtime hands them out: the default compute stream 7, NCCL's
  // internal streams after it.
  static int streamId(int stream) { return stream == 0 ? 7 : 20 + stream; }

  std::string opLabel(const OpId& id) const { return torchOpLabel(job_.spec, id); }

  void range(const HostRange& h) {
    const uint64_t ext = nextExternal_++;
    const std::string extArg = "\"External id\": " + std::to_string(ext);
    switch (h.kind) {
      case HostKind::ProfilerStep:
        event("user_annotation", "ProfilerStep#" + std::to_string(h.index), pid_, pid_, h.start,
              h.end, extArg);
        return;
      case HostKind::Optimizer:
        event("user_annotation", "Optimizer.step#AdamW.step", pid_, pid_, h.start, h.end, extArg);
        return;
      case HostKind::PipelineOp: {
        const OpRun& op = tl_.ops[h.index];
        const std::string label = opLabel(op.id);
        event("user_annotation", label, pid_, pid_, h.start, h.end, extArg);
        if (o_.gpuAnnotations && before(tl_.kernels[op.lastKernel].end)) {
          // Kineto's GPU projection of the range: its kernels' span, 1 ns wider on each side.
          const Kernel& a = tl_.kernels[op.firstKernel];
          const Kernel& b = tl_.kernels[op.lastKernel];
          event("gpu_user_annotation", label, device_, streamId(0), a.start - 1, b.end + 1, extArg);
        }
        return;
      }
      case HostKind::PipelineComm:
        event("user_annotation",
              torchCommLabel(job_.spec, stageOfRank(job_.spec, tl_.rank), tl_.calls[h.index]), pid_,
              pid_, h.start, h.end, extArg);
        return;
      case HostKind::Coalesced:
        // ProcessGroupNCCL's endCoalescing: the group's one kernel is launched here.
        coalescedExternal_[h.index] = ext;
        event("cpu_op", "record_param_comms", pid_, pid_, h.start, h.end,
              extArg +
                  ", \"Collective name\": \"coalesced\", \"Process Group Name\": \"0\", "
                  "\"Process Group Description\": \"default_pg\", \"Process Group Ranks\": \"" +
                  ranks() + "\"");
        event("user_annotation", "nccl:coalesced", pid_, pid_, h.start + 2'000, h.end - 2'000,
              "\"External id\": " + std::to_string(nextExternal_++));
        return;
      case HostKind::CommCall: {
        const NcclCall& c = tl_.calls[h.index];
        commExternal_[h.index] = ext;
        std::string args = extArg + ", " + commArgs(c);
        event("cpu_op", "record_param_comms", pid_, pid_, h.start, h.end, args);
        const std::string title =
            c.kind == CallKind::Send
                ? "nccl:send " + std::to_string(tl_.rank) + "->" + std::to_string(c.peer)
            : c.kind == CallKind::Recv
                ? "nccl:recv " + std::to_string(tl_.rank) + "<-" + std::to_string(c.peer)
                : "nccl:all_reduce";
        event("user_annotation", title, pid_, pid_, h.start + 2'000, h.end - 2'000,
              "\"External id\": " + std::to_string(nextExternal_++));
        return;
      }
    }
  }

  std::string commArgs(const NcclCall& c) const {
    const bool p2p = c.kind != CallKind::AllReduce;
    const uint64_t elems = p2p ? c.bytes / 2 : 1;
    std::string a = std::string("\"Collective name\": \"") +
                    (c.kind == CallKind::Send   ? "send"
                     : c.kind == CallKind::Recv ? "recv"
                                                : "allreduce") +
                    "\", \"dtype\": \"" + (p2p ? "BFloat16" : "Float") +
                    "\", \"In msg nelems\": " + std::to_string(elems) +
                    ", \"Out msg nelems\": " + std::to_string(elems) +
                    ", \"Group size\": " + std::to_string(worldSize(job_.spec)) +
                    ", \"Process Group Name\": \"0\", \"Process Group Description\": "
                    "\"default_pg\", \"Process Group Ranks\": \"" +
                    ranks() + "\"";
    if (c.kind == CallKind::Send)
      a += ", \"Rank\": " + std::to_string(c.peer) + ", \"Dst Rank\": " + std::to_string(c.peer);
    if (c.kind == CallKind::Recv)
      a += ", \"Rank\": " + std::to_string(c.peer) + ", \"Src Rank\": " + std::to_string(c.peer);
    if (!p2p) a += ", \"Rank\": " + std::to_string(tl_.rank);
    a += ", \"Seq\": " + std::to_string(c.seq);
    return a;
  }

  // The caching allocator's call as the profiler's profile_memory records it: an instant on the
  // calling thread with the tensor's bytes and the allocator's totals after it (c10 device type
  // 1 = CUDA).
  void memory(const AllocatorCall& c) {
    add("{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", "
        "\"pid\": " +
        std::to_string(pid_) + ", \"tid\": " + std::to_string(pid_) + ", \"ts\": " + ts(c.time) +
        ", \"args\": {\"Total Reserved\": " + std::to_string(c.reserved) +
        ", \"Total Allocated\": " + std::to_string(c.allocated) + ", \"Bytes\": " +
        std::to_string(c.tensorBytes) + ", \"Addr\": " + std::to_string(c.address) +
        ", \"Device Type\": 1, \"Device Id\": " + std::to_string(device_) + "}}");
  }

  void kernel(const Kernel& k) {
    const ApiCall* launch = launches_.at(k.correlation);
    if (!before(launch->end)) return;  // launched after the hang: never
    if (!inWindow(k.start)) return;    // ran before the profiler's window
    const bool launchKept = inWindow(launch->start);
    uint64_t ext = nextExternal_++;
    std::string name;
    std::string extra;
    switch (k.kind) {
      case KernelKind::Compute: {
        const int i = static_cast<int>(k.correlation % 4);
        name = kComputeKernels[i];
        // The aten op that launched it, inside the PP range.
        if (inWindow(launch->start - 3'000)) {
          event("cpu_op", kComputeOps[i], pid_, launchTid(k), launch->start - 3'000,
                launch->end + 2'000,
                "\"External id\": " + std::to_string(ext) +
                    ", \"Sequence number\": " + std::to_string(k.correlation));
        }
        break;
      }
      case KernelKind::Optimizer:
        name = kOptimizerKernel;
        break;
      case KernelKind::SendRecv: {
        name = "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)";
        const std::vector<int>& batch = tl_.batches[k.owner];
        // The call (or group) that launched it is in the trace unless it was still open.
        if (batch.size() == 1) {
          if (!commExternal_.count(batch.front()) && !callsBeforeWindow_.count(batch.front())) {
            return;
          }
          if (commExternal_.count(batch.front())) ext = commExternal_.at(batch.front());
          extra = ", " + commArgs(tl_.calls[batch.front()]);
        } else {
          if (!coalescedExternal_.count(k.owner) && !batchesBeforeWindow_.count(k.owner)) return;
          if (coalescedExternal_.count(k.owner)) ext = coalescedExternal_.at(k.owner);
          extra = ", \"Collective name\": \"coalesced\"";
        }
        break;
      }
      case KernelKind::AllReduce:
        name = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
        if (!commExternal_.count(k.owner) && !callsBeforeWindow_.count(k.owner)) return;
        if (commExternal_.count(k.owner)) ext = commExternal_.at(k.owner);
        extra = ", " + commArgs(tl_.calls[k.owner]);
        break;
    }
    const std::string corr = "\"correlation\": " + std::to_string(k.correlation);
    const bool nccl = k.kind == KernelKind::SendRecv || k.kind == KernelKind::AllReduce;
    if (launchKept) {
      event(nccl ? "cuda_driver" : "cuda_runtime", nccl ? "cuLaunchKernelEx" : "cudaLaunchKernel",
            pid_, launchTid(k), launch->start, launch->end,
            corr + ", \"External id\": " + std::to_string(ext) +
                ", \"cbid\": " + (nccl ? "652" : "211"));
    }
    if (!before(k.end)) return;  // still running when the job hung: CUPTI never recorded it
    event("kernel", name, device_, streamId(k.stream), k.start, k.end,
          "\"External id\": " + std::to_string(ext) + ", \"device\": " + std::to_string(device_) +
              ", \"stream\": " + std::to_string(streamId(k.stream)) + ", " + corr + extra);
  }

  const JobTimeline& job_;
  const RankTimeline& tl_;
  KinetoOptions o_;
  int pid_, device_;
  TimeNs skew_ = 0;
  std::ostringstream events_;
  bool first_ = true;
  uint64_t nextExternal_ = 1;
  int syncs_ = 0;
  std::map<int, uint64_t> commExternal_, coalescedExternal_;
  std::set<int> callsBeforeWindow_, batchesBeforeWindow_;  // made before the profiler's window
  std::unordered_map<uint32_t, const ApiCall*> launches_;
};

}  // namespace

std::string kinetoRankJson(const JobTimeline& job, int rank, const KinetoOptions& options) {
  return Writer(job, rank, options).json();
}

}  // namespace bubblescope::tracegen
