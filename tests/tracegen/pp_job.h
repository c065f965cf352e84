#pragma once
// A pipeline-parallel training job as real stacks run it, for tests: what the job is (stages,
// microbatches, op costs, links) and what goes wrong in it (a slow stage, a late launch, a slow
// link, jitter). The execution model (execution.h) turns it into what each rank's CPU and GPU
// did; the stack writers (kineto_stack.h, ...) write that as PyTorch's profiler, Nsight Systems or
// the agent would. Written from our own model of the stack, independently of the reference
// engine and its simulator, so the analysis is checked against something it did not produce.
#include <cstdint>
#include <optional>
#include <vector>

#include "traces/model/time.h"

namespace bubblescope::tracegen {

// F forward; BW the full backward of 1F1B and interleaved 1F1B (torch: B); B the input gradient
// and W the weight gradient of the split backward of ZB-V (torch: I and W).
enum class PassKind : uint8_t { F, BW, B, W };

// Ops that autograd runs (from its own thread when the stack models one).
inline bool isBackward(PassKind pass) {
  return pass != PassKind::F;
}

// The order of ops the job's stages run.
enum class JobSchedule : uint8_t {
  OneF1B,  // torch's Schedule1F1B: one chunk per stage on a chain, F and BW
  ZbV,     // torch's ScheduleZBVZeroBubble: two chunks per stage in a V, F, B and W (zb_v_order.h)
  // torch's ScheduleInterleaved1F1B, Megatron-LM's interleaved 1F1B: two chunks per stage looped
  // (chunk c of stage s is virtual stage cp + s), F and BW; m a multiple of p
  // (interleaved_order.h).
  Interleaved,
};

// One op of the job: stage (= rank), step (0-based), pass, microbatch and model chunk (ZB-V:
// chunk 0 is virtual stage `stage`, chunk 1 virtual stage 2p - 1 - stage; interleaved: chunk c is
// virtual stage cp + stage).
struct OpId {
  int stage = 0;
  int step = 0;
  PassKind pass = PassKind::F;
  int mb = 0;
  int chunk = 0;
  bool operator==(const OpId&) const = default;
};

// One entry of a stage's op order within a step.
struct StageOp {
  PassKind pass = PassKind::F;
  int mb = 0;
  int chunk = 0;
  bool operator==(const StageOp&) const = default;
};

// The host launched this op's kernels `delay` after it would have (a GC pause, a data-loader
// hiccup: nothing on the CPU timeline says so). `beforeInputPost`: the host lost that time before
// it posted the op's receive (with 1F1B's fused posts, the batch that also sends the op before's
// output), so the receive, the data and the op all come late while the sender's data waits; an
// op without a receive is delayed before its launch either way.
struct LateLaunch {
  OpId op;
  TimeNs delay = 0;
  bool beforeInputPost = false;
  int replica = 0;  // the DP replica whose stage op.stage is late
};

// Every transfer on the link from -> to takes `extra` longer (a congested or degraded link).
struct SlowLink {
  int from = 0, to = 0;
  TimeNs extra = 0;
};

struct JobSpec {
  int p = 4;
  // DP replicas: dp pipelines of p stages (ranks laid out below), joined each step by
  // the grad-norm all-reduce across every rank of the job (so the slowest replica holds up all).
  int dp = 1;
  // How ranks are laid out: replica-major (rank = replica * p + stage: a replica's stages
  // adjacent) or stage-major (rank = stage * dp + replica: PP the outermost
  // dimension of the device mesh, as torchtitan's ("pp", "dp") and Megatron-LM lay ranks out).
  bool stageMajor = false;
  int m = 8;
  int steps = 3;
  JobSchedule schedule = JobSchedule::OneF1B;
  // Device cost of one op (its kernels back to back) on a healthy stage: F always, BW under
  // 1F1B and interleaved 1F1B, B and W under ZB-V (the same for both chunks).
  TimeNs costF = 2'000'000, costBW = 4'000'000;
  TimeNs costB = 2'000'000, costW = 2'000'000;
  // ZB-V: the runtime's record_function around each send and receive action too
  // ("PP:3SEND_F1", as torch.distributed.pipelining's action runtime names them), not only
  // around the ops.
  bool labelP2p = false;
  // A labelling bug: these stages' op labels swap microbatches 0 and 1, so the dependencies the
  // labels imply are not the ones the job had.
  std::vector<int> mislabelledStages;
  int kernelsPerOp = 4;
  // Host side: what one kernel launch costs the CPU thread (Python + dispatcher + launch).
  TimeNs launchCpu = 25'000;
  TimeNs launchLatency = 8'000;  // a launch reaches the device this long after the call began
  // Point-to-point transfers: latency + bytes / bandwidth, the same for activations and gradients.
  TimeNs transfer = 150'000;
  uint64_t activationBytes = 8u << 20;
  // NCCL delivers a message of at most this many bytes without waiting for its receiver (into the
  // peer's buffer: NCCL_BUFFSIZE, 4 MiB by default): a batch of such sends only ends once its data
  // is out, and the receive, whenever it starts, only copies it out. 0: every message waits for
  // its receiver (a rendezvous), as larger ones do. Batches that also receive always wait.
  uint64_t bufferedBytes = 0;
  // ProcessGroupNCCL's stream sync: a batch's kernel waits for the compute enqueued before it,
  // so a receive posted after an op starts only once that op is done (torch >= 2.x with
  // batch_isend_irecv from the default stream). false: receives wait for nothing but their
  // stream.
  bool p2pWaitsForCompute = false;
  // 1F1B: an op's output and the next op's input, when both go to the same peer, posted as one
  // batch (torch's fwd_send_bwd_recv / bwd_send_fwd_recv: one fused kernel), or each alone (torch's
  // older P2POp path, Megatron-LM's non-batched _p2p_ops): two kernels on the pair's stream, in
  // the order both sides of the pair share (even stages send first, odd stages receive first).
  bool fuseP2p = true;
  // Where a rank's p2p kernels run: a stream per peer (ProcessGroupNCCL's communicator per pair),
  // or one stream for both peers (torch >= 2.1 batches p2p on the group's communicator: its one
  // NCCL stream serialises the batches to the previous and the next stage).
  bool sharedP2pStream = false;
  // false: every message on a stream of its own, none waiting behind another (the truth's ideal
  // of a schedule that posts each message alone, truth.h).
  bool p2pStreamsQueue = true;
  // The step's tail: the grad-norm all-reduce across the pipeline's stages (transfer part), then
  // the optimizer's kernels.
  TimeNs allReduce = 300'000;
  TimeNs optimizer = 1'500'000;
  int optimizerKernels = 6;
  // What goes wrong.
  std::optional<int> slowStage;    // in every replica (a model split unevenly)
  std::optional<int> slowReplica;  // every stage of it (a slow node, longer sequences)
  double slowFactor = 1.0;
  std::vector<LateLaunch> lateLaunches;
  std::vector<SlowLink> slowLinks;
  double jitter = 0.0;  // relative spread of op costs (uniform in ±jitter), seeded
  uint64_t seed = 1;
  // Device memory (memory_model.h): the device's capacity, each stage's weights and optimizer
  // state (reserved before the first step), and one microbatch's activations, held from its
  // forward's start to its backward's end in a segment `segmentSlack` larger (what the caching
  // allocator reserves for it). recordMemory: the writers record the allocator's calls.
  bool recordMemory = true;
  uint64_t deviceMemory = 85'045'477'376;  // an H100 80GB's totalGlobalMem
  int64_t weightMemory = int64_t{24} << 30;
  int64_t mbActivationMemory = int64_t{5} << 30;
  int64_t segmentSlack = int64_t{512} << 20;
  // Each rank's clock is off the true time by this much (index = rank; missing = 0).
  std::vector<TimeNs> clockSkew;
  // The step range (ProfilerStep#N) begins this long after the step's first op annotation, as
  // when the profiler's step() is called inside the training loop's first op.
  TimeNs stepRangeLag = 0;
  TimeNs start = 1'700'000'000'000'000'000;  // epoch ns of the job's first event
};

// Every rank of the job: p stages in each of dp replicas.
inline int worldSize(const JobSpec& spec) {
  return spec.p * spec.dp;
}

// A rank's stage and DP replica, and the rank of a (replica, stage), as JobSpec::stageMajor lays
// them out.
inline int stageOfRank(const JobSpec& spec, int rank) {
  return spec.stageMajor ? rank / spec.dp : rank % spec.p;
}
inline int replicaOfRank(const JobSpec& spec, int rank) {
  return spec.stageMajor ? rank % spec.dp : rank / spec.p;
}
inline int rankOf(const JobSpec& spec, int replica, int stage) {
  return spec.stageMajor ? stage * spec.dp + replica : replica * spec.p + stage;
}

// Model chunks per stage: one on 1F1B's chain, two in ZB-V's V and in interleaving's loop.
inline int chunksPerStage(const JobSpec& spec) {
  return spec.schedule == JobSchedule::OneF1B ? 1 : 2;
}

// Where the model's pieces sit: 1F1B's chain (virtual stage = stage), ZB-V's V (stage s holds
// virtual stages s and 2p - 1 - s, so the loss is on stage 0), or interleaving's loop (stage s
// holds s and p + s: the last stage hands chunk 0's output to stage 0's chunk 1).
inline int virtualStages(const JobSpec& spec) {
  return chunksPerStage(spec) * spec.p;
}

inline int virtualStage(const JobSpec& spec, int stage, int chunk) {
  if (spec.schedule == JobSchedule::ZbV) return chunk == 0 ? stage : 2 * spec.p - 1 - stage;
  return chunk * spec.p + stage;
}

inline int stageOfVirtual(const JobSpec& spec, int vs) {
  if (spec.schedule == JobSchedule::ZbV) return vs < spec.p ? vs : 2 * spec.p - 1 - vs;
  return vs % spec.p;
}

// Which of its stage's chunks virtual stage `vs` is (its stage: stageOfVirtual).
inline int chunkOfVirtual(const JobSpec& spec, int vs) {
  return vs / spec.p;
}

}  // namespace bubblescope::tracegen
