#include "tests/tracegen/nsys_stack.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "tests/tracegen/memory_model.h"
#include "tests/tracegen/nsys_export.h"
#include "tests/tracegen/op_labels.h"
#include "tests/tracegen/p2p_order.h"

namespace bubblescope::tracegen {
namespace {

using Labels = NsysOptions::Labels;
using P2pComms = NsysOptions::P2pComms;

// Kernels as nsys names them (demangled with templates, and the base name) with their launch
// shapes.
struct KernelName {
  const char* name;
  const char* shortName;
  int grid, block, registers;
  int64_t sharedMemory;
};

constexpr KernelName kCompute[] = {
    {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
     "segment_k_off_kernel__5x_cublas",
     "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
     "segment_k_off_kernel__5x_cublas",
     264, 384, 168, 213196},
    {"void at::native::vectorized_elementwise_kernel<(int)4, at::native::GeluCUDAKernelImpl("
     "at::TensorIteratorBase &, at::native::GeluType)::[lambda() (instance 2)]::operator ()() const"
     "::[lambda() (instance 4)]::operator ()() const::[lambda(c10::BFloat16) (instance 1)], "
     "std::array<char *, (unsigned long)2>>(int, T2, T3)",
     "vectorized_elementwise_kernel", 46800, 128, 32, 0},
    {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_"
     "segment_k_off_kernel__5x_cublas",
     "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_"
     "segment_k_off_kernel__5x_cublas",
     132, 384, 168, 213196},
    {"void at::native::<unnamed>::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, T2, "
     "const T1 *, const T1 *, const T1 *, T2 *, T2 *, T1 *)",
     "vectorized_layer_norm_kernel", 8192, 256, 40, 0},
};
constexpr const char* kComputeOps[] = {"aten::mm", "aten::gelu", "aten::mm",
                                       "aten::native_layer_norm"};
constexpr KernelName kOptimizer = {
    "void at::native::<unnamed>::multi_tensor_apply_kernel<at::native::<unnamed>::"
    "TensorListMetadata<(int)4>, at::native::<unnamed>::FusedAdamMathFunctor<float, (int)4, "
    "(at::native::ADAM_MODE)1, (bool)0>, float *, double, double, double, double, double, double, "
    "bool, float *, float *>(T1, T2, T3...)",
    "multi_tensor_apply_kernel",
    320,
    512,
    72,
    0};
constexpr KernelName kSendRecv = {
    "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<(unsigned long)4096>)",
    "ncclDevKernel_SendRecv",
    32,
    640,
    96,
    0};
constexpr KernelName kAllReduce = {
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<(unsigned long)4096>)",
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
    4,
    640,
    96,
    0};

constexpr int kNcclDomain = 1;                  // NCCL's NVTX domain, the first one a process makes
constexpr uint32_t kOwnCorrelation = 1u << 30;  // for API calls the model has no id for
constexpr TimeNs kCaptureLead = 4'000'000'000;  // nsys starts before the job's first step

// A communicator's hash: 64 well-mixed bits, as NCCL's are (half of them above 2^63).
uint64_t commHash(uint64_t key) {
  uint64_t x = key + 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint64_t groupComm() {
  return commHash(1);
}
uint64_t pairComm(int a, int b) {
  return commHash(1000 + 100 * std::min(a, b) + std::max(a, b));
}

NvtxPayload payload(uint64_t schema, uint64_t comm, uint64_t bytes, const char* last,
                    uint64_t value) {
  return {schema, {{"NCCL communicator ID", comm}, {"Message size [bytes]", bytes}, {last, value}}};
}

// One rank's process in its host's export.
class ProcessWriter {
 public:
  ProcessWriter(const JobTimeline& job, int rank, int local, TimeNs toSession, const NsysOptions& o,
                NsysExport& out)
      : job_(job),
        tl_(job.ranks[rank]),
        o_(o),
        out_(out),
        pid_(4170 + 3 * local),
        device_(local),
        toSession_(toSession) {
    for (const Kernel& k : tl_.kernels) {
      kindOf_[k.correlation] = k.kind;
      if (k.kind == KernelKind::Compute && k.owner >= 0 &&
          isBackward(tl_.ops[static_cast<size_t>(k.owner)].id.pass) && o_.autogradThread) {
        autograd_.insert(k.correlation);
      }
    }
  }

  void write() {
    out_.process(pid_, "python3");
    if (o_.autogradThread) out_.thread(pid_, autogradTid(), "pt_autograd_0");
    for (int s : streams()) out_.stream(pid_, device_, streamId(s), s != 0);
    communicators();
    for (const HostRange& h : tl_.ranges) range(h);
    for (const ApiCall& a : tl_.api) api(a);
    for (const Kernel& k : tl_.kernels) kernel(k);
    // The allocator's cudaMalloc and cudaFree calls (nsys --cuda-memory-usage=true).
    for (const AllocatorCall& c : allocatorCalls(job_, tl_.rank)) {
      if (c.segmentBytes == 0) continue;
      out_.memoryUsage(t(c.time), pid_, device_, c.address,
                       static_cast<uint64_t>(std::abs(c.segmentBytes)), c.segmentBytes > 0);
    }
    writeTexts();
  }

 private:
  TimeNs t(TimeNs trueTime) const { return trueTime + toSession_; }

  std::vector<int> streams() const {
    std::vector<int> s;
    for (const Kernel& k : tl_.kernels) {
      if (std::find(s.begin(), s.end(), k.stream) == s.end()) s.push_back(k.stream);
    }
    return s;
  }

  // The legacy default stream is 7 in nsys's numbering; NCCL's streams are created after it.
  static int64_t streamId(int stream) { return stream == 0 ? 7 : 9 + 4 * stream; }

  uint64_t p2pComm(int peer) const {
    return o_.p2p == P2pComms::Pairs ? pairComm(tl_.rank, peer) : groupComm();
  }
  // The peer's rank in the communicator: in a pair's, the lower global rank is 0.
  int p2pPeer(int peer) const {
    return o_.p2p == P2pComms::Pairs ? (peer < tl_.rank ? 0 : 1) : peer;
  }

  void nccl(TimeNs start, TimeNs end, const char* name, const NvtxPayload& payload = {}) {
    out_.registeredRange(t(start), t(end), pid_, pid_, kNcclDomain, name, payload);
  }

  void communicators() {
    if (!o_.ncclSetupCaptured) return;
    TimeNs at = job_.spec.start - 40'000'000;
    out_.domain(t(at - 1'000), pid_, pid_, kNcclDomain, "NCCL");
    auto init = [&](uint64_t comm, int size, int rank) {
      nccl(at, at + 2'000'000, "ncclCommInitRankConfig",
           {kNcclCommInitSchema,
            {{"NCCL communicator ID", comm},
             {"No. of ranks", static_cast<uint64_t>(size)},
             {"Rank", static_cast<uint64_t>(rank)},
             {"CUDA device", static_cast<uint64_t>(device_)}}});
      at += 3'000'000;
    };
    init(groupComm(), worldSize(job_.spec), tl_.rank);
    if (o_.p2p == P2pComms::Group) return;
    for (int peer : peers(job_.spec, tl_.rank)) init(pairComm(tl_.rank, peer), 2, peer < tl_.rank);
  }

  // A torch range: a record_function (which emit_nvtx decorates with its op id, and an autograd
  // op also with its sequence number) or the user's own torch.cuda.nvtx range.
  enum class Decoration { None, OpId, SeqOpId };
  struct TextRange {
    TimeNs start, end;
    std::string name;
    Decoration decoration;
    int tid;
  };

  void text(TimeNs start, TimeNs end, std::string name, Decoration d = Decoration::OpId,
            int tid = 0) {
    if (o_.labels != Labels::EmitNvtx) d = Decoration::None;
    texts_.push_back({start, end, std::move(name), d, tid ? tid : pid_});
  }

  int autogradTid() const { return pid_ + 1; }
  int launchTid(uint32_t correlation) const {
    return autograd_.count(correlation) ? autogradTid() : pid_;
  }

  // Op ids and sequence numbers count in the order the ranges opened, as torch hands them out.
  void writeTexts() {
    std::stable_sort(texts_.begin(), texts_.end(), [](const TextRange& a, const TextRange& b) {
      return a.start != b.start ? a.start < b.start : a.end > b.end;
    });
    uint64_t opId = 1, seq = 1;
    for (const TextRange& r : texts_) {
      std::string name = r.name;
      if (r.decoration == Decoration::SeqOpId) name += ", seq = " + std::to_string(seq++);
      if (r.decoration != Decoration::None) name += ", op_id = " + std::to_string(opId++);
      out_.range(t(r.start), t(r.end), pid_, r.tid, name);
    }
  }

  std::string opLabel(const OpId& id) const {
    if (o_.labels == Labels::Bubblescope) return bubblescopeOpLabel(job_.spec, id);
    return torchOpLabel(job_.spec, id);  // torch.distributed.pipelining's record_function
  }

  void range(const HostRange& h) {
    const bool emit = o_.labels == Labels::EmitNvtx;
    switch (h.kind) {
      case HostKind::ProfilerStep:
        // A start/end range: the loop opens it a little into the step's first op (the model's
        // stepRangeLag), which push/pop ranges could not express.
        out_.startEndRange(t(h.start), t(h.end), pid_, pid_, "step " + std::to_string(h.index),
                           ++stepRanges_);
        return;
      case HostKind::Optimizer:
        text(h.start, h.end, emit ? "Optimizer.step#AdamW.step" : "optimizer");
        return;
      case HostKind::PipelineOp:
        text(h.start, h.end, opLabel(tl_.ops[h.index].id));
        return;
      case HostKind::PipelineComm:
        text(h.start, h.end,
             emit ? torchCommLabel(job_.spec, stageOfRank(job_.spec, tl_.rank), tl_.calls[h.index])
                  : bubblescopeCommLabel(job_.spec, tl_.calls[h.index]));
        return;
      case HostKind::Coalesced:
        if (emit) text(h.start, h.end, "record_param_comms");
        groupEnd(h.start + 9'000, h.end - 2'000);
        return;
      case HostKind::CommCall:
        if (emit) text(h.start, h.end, "record_param_comms");
        call(h);
        return;
    }
  }

  // NCCL's ranges for one call: a batch opens its group just before its first call's
  // record_param_comms; a batch of one ends its group inside that call's range, where the
  // model launches its kernel (10 µs in); a longer batch ends it in its coalesced range.
  void call(const HostRange& h) {
    const NcclCall& c = tl_.calls[h.index];
    if (c.kind == CallKind::AllReduce) {
      nccl(h.start + 2'000, h.end - 2'000, "ncclAllReduce",
           payload(kNcclAllReduceSchema, groupComm(), c.bytes, "Reduction operation", 0));
      return;
    }
    const std::vector<int>& batch = tl_.batches[c.batch];
    if (batch.front() == h.index) nccl(h.start - 700, h.start - 300, "ncclGroupStart");
    const bool send = c.kind == CallKind::Send;
    const NvtxPayload p = payload(send ? kNcclSendSchema : kNcclRecvSchema, p2pComm(c.peer),
                                  c.bytes, "Peer rank", static_cast<uint64_t>(p2pPeer(c.peer)));
    const char* name = send ? "ncclSend" : "ncclRecv";
    if (batch.size() > 1) {
      nccl(h.start + 300, h.end - 100, name, p);
      return;
    }
    nccl(h.start + 3'000, h.start + 8'000, name, p);
    groupEnd(h.start + 9'000, h.end - 2'000);
  }

  // ncclGroupEnd orders NCCL's stream after the caller's (an event record and a stream wait)
  // before it launches the group's kernel 2 µs in.
  void groupEnd(TimeNs start, TimeNs end) {
    nccl(start, end, "ncclGroupEnd");
    out_.api(t(start + 300), t(start + 900), pid_, pid_, kOwnCorrelation + ownIds_++,
             "cudaEventRecord_v3020", false);
    out_.api(t(start + 1'000), t(start + 1'700), pid_, pid_, kOwnCorrelation + ownIds_++,
             "cudaStreamWaitEvent_v3020", false);
  }

  void api(const ApiCall& a) {
    if (!a.launch) {
      // .item() on the grad norm: the CPU blocks until the compute stream drains.
      const uint32_t corr = kOwnCorrelation + ownIds_++;
      out_.api(t(a.start), t(a.end), pid_, pid_, corr, "cudaStreamSynchronize_v3020", false);
      out_.streamSync(t(a.start + 1'000), t(std::max(a.start + 1'000, a.end - 10'000)), pid_,
                      device_, streamId(0), corr);
      return;
    }
    const KernelKind kind = kindOf_.at(a.correlation);
    const bool ncclKernel = kind == KernelKind::SendRecv || kind == KernelKind::AllReduce;
    if (ncclKernel) {
      out_.api(t(a.start), t(a.end), pid_, pid_, a.correlation, "cuLaunchKernelEx", true);
      return;
    }
    const int tid = launchTid(a.correlation);
    out_.api(t(a.start), t(a.end), pid_, tid, a.correlation, "cudaLaunchKernel_v7000", false);
    if (o_.labels == Labels::EmitNvtx) {
      // The aten op around the launch, inside its PP: range (push/pop ranges nest).
      const std::string op = kind == KernelKind::Optimizer
                                 ? "aten::_fused_adamw_"
                                 : kComputeOps[a.correlation % std::size(kComputeOps)];
      text(a.start - 400, a.end + 400, op,
           kind == KernelKind::Compute ? Decoration::SeqOpId : Decoration::OpId, tid);
    }
  }

  void kernel(const Kernel& k) {
    const KernelName& n = k.kind == KernelKind::Compute
                              ? kCompute[k.correlation % std::size(kCompute)]
                          : k.kind == KernelKind::Optimizer ? kOptimizer
                          : k.kind == KernelKind::SendRecv  ? kSendRecv
                                                            : kAllReduce;
    KernelRow row;
    row.start = t(k.start);
    row.end = t(k.end);
    row.pid = pid_;
    row.device = device_;
    row.stream = streamId(k.stream);
    row.correlation = k.correlation;
    row.name = n.name;
    row.shortName = n.shortName;
    row.gridX = n.grid;
    row.blockX = n.block;
    row.registers = n.registers;
    row.sharedMemory = n.sharedMemory;
    out_.kernel(row);
  }

  const JobTimeline& job_;
  const RankTimeline& tl_;
  const NsysOptions& o_;
  NsysExport& out_;
  int pid_, device_;
  TimeNs toSession_;
  std::unordered_map<uint32_t, KernelKind> kindOf_;
  std::unordered_set<uint32_t> autograd_;  // correlations of launches on the autograd thread
  std::vector<TextRange> texts_;
  uint32_t ownIds_ = 0;
  int64_t stepRanges_ = 0;
};

TimeNs jobEnd(const JobTimeline& job) {
  TimeNs end = job.spec.start;
  for (const RankTimeline& tl : job.ranks) {
    for (const Kernel& k : tl.kernels) end = std::max(end, k.end);
    for (const HostRange& h : tl.ranges) end = std::max(end, h.end);
  }
  return end;
}

}  // namespace

std::vector<std::filesystem::path> writeNsysExports(const JobTimeline& job,
                                                    const std::filesystem::path& dir,
                                                    const NsysOptions& o) {
  const int p = worldSize(job.spec);
  const int perHost = std::max(1, std::min(o.ranksPerHost, p));
  const TimeNs end = jobEnd(job);
  std::vector<std::filesystem::path> files;
  for (int host = 0, first = 0; first < p; ++host, first += perHost) {
    // Each host's nsys started on its own, a little apart; its monotonic clock counts its uptime.
    const TimeNs captureStart = job.spec.start - kCaptureLead + host * 37'000'000;
    const TimeNs uptime = 35'255'823'190 + host * 611'234'567;
    const TimeNs skew =
        first < static_cast<int>(job.spec.clockSkew.size()) ? job.spec.clockSkew[first] : 0;
    NsysSession session;
    session.systemClockNs = uptime;
    session.utcEpochNs = captureStart + skew;
    session.stopNs = end + 500'000'000 - captureStart + uptime;
    session.hostname = "node" + std::to_string(host);
    session.command = {"torchrun", "--nnodes=" + std::to_string((p + perHost - 1) / perHost),
                       "--nproc-per-node=" + std::to_string(perHost), "train_pp.py"};
    files.push_back(dir / ("node" + std::to_string(host) + ".sqlite"));
    NsysExport out(files.back(), session, o.payloads);
    for (int r = first; r < std::min(p, first + perHost); ++r) {
      out.gpu(r - first, "NVIDIA H100 80GB HBM3",
              "GPU-5f0e" + std::to_string(host) + "c1a-9b2d-4e7f-8a10-" + std::to_string(r),
              job.spec.deviceMemory);
      ProcessWriter(job, r, r - first, uptime - captureStart, o, out).write();
    }
    out.finish();
  }
  return files;
}

}  // namespace bubblescope::tracegen
