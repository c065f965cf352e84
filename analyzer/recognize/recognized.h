#pragma once
// What op recognition finds in one rank's trace: pipeline ops (F/B/W/BW per microbatch and
// chunk), the sends and receives between stages, step markers, and the other phases of a step.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/result/traced_members.h"
#include "reference_engine/schedule/op.h"
#include "traces/model/events.h"
#include "traces/model/time.h"

namespace bubblescope::analysis {

using engine::Op;
using engine::OpKind;

// What a trace range stands for.
enum class Role : uint8_t {
  Op,         // F/B/W/BW work of one microbatch
  Send,       // activations (F) or gradients (B) sent to another stage
  Recv,       // ... received from another stage
  Step,       // one training iteration
  Optimizer,  // the optimizer step
  GradSync,   // gradient synchronisation (DP all-reduce, grad-norm all-reduce)
  OtherBusy,  // other device work: loss, recompute, embedding sync
};

// One match of a rule against a range name. Fields a rule does not give stay unset.
struct Match {
  Role role = Role::Op;
  OpKind kind = OpKind::F;      // for Op; for Send/Recv the pass the data is for (F or B)
  std::optional<int> mb;        // microbatch
  int chunk = 0;                // model chunk on the stage
  std::optional<int> peer;      // the other stage (Send: to, Recv: from)
  std::optional<int> stage;     // the stage the label names (torch pipelining labels carry one)
  std::optional<int64_t> step;  // step number (Step)
};

inline constexpr TimeNs kNoLaunch = INT64_MIN;

// Held for every op of the run through the analysis: 32 bytes, `step` in the room the alignment
// of the times leaves after `op` (issue 28). The thread that opened its range matters only to
// kernel attribution, which is given it apart (kernel_attribution.h); its kernels only to a rank
// whose trace has them (RankOps::opKernels); its host range only where that is not its span
// (RankOps::opHosts).
struct RecognizedOp {
  Op op;
  int step = -1;              // index into the rank's steps, set when steps are cut
  TimeNs start = 0, end = 0;  // execution: GPU kernels' span when the trace has them, else range
};
static_assert(sizeof(RecognizedOp) == 32);

// When the host ran an op: its range, from its launch (the range's start) to the range's end.
struct HostSpan {
  TimeNs launch = 0, end = 0;
  bool operator==(const HostSpan&) const = default;
};

// An op's kernels, on a rank whose trace has them. Kept beside the ops, not in them: an op-level
// timeline has none, and its ops are most of a large run's records (issue 28: at 10,000 DP
// replicas the ops were 40% of the peak at 64 bytes each).
struct OpKernels {
  TimeNs firstLaunch = kNoLaunch;  // its first kernel's launch call
  uint32_t begin = 0, end = 0;     // RankOps::computeKernels[begin, end)
};

// The most model chunks a send or receive can name, and the most threads a rank's sends and
// receives can run on: what the room a comm keeps for them holds (recognition refuses a trace
// that needs more, and says so).
inline constexpr int kCommChunks = 256;
inline constexpr size_t kCommThreads = 65536;

// Held for every send and receive of the run through the analysis: the flags, chunk and thread
// first, in the room the alignment of `mb` leaves (32 bytes, where a chunk and a thread of 4 bytes
// each made it 40; a launch of its own 48: issue 28).
struct RecognizedComm {
  bool send : 1 = true;
  OpKind pass : 2 = OpKind::F;  // F: activations, B: gradients
  // Its start and end are its NCCL kernels' (their wait/transfer split is theirs).
  bool onDevice : 1 = false;
  uint8_t chunk = 0;    // below kCommChunks
  uint16_t thread = 0;  // a traces::ThreadIndex below kCommThreads
  int mb = 0;
  // What it is sent to or received from. While its pipeline is built, `peer`: the other stage as
  // the label gives it (-1: unknown). Once buildPipeline has matched its sends with its receives,
  // `peerPlace`: where its other side is among the pipeline's comms (PipelineTrace::commAt; -1:
  // unmatched). Nothing reads the label's stage after matching, and the transfers looked up
  // beside the comms were 20 bytes a transfer more (13 MB at 10,000 stages, issue 28).
  union {
    int peer = -1;
    int32_t peerPlace;
  };
  int step = -1;
  TimeNs start = 0, end = 0;
  // When the host posted it is RankOps::launchOf: most comms were posted as they began.
};
static_assert(sizeof(RecognizedComm) == 32);

// Device work outside the ops' compute: an NCCL kernel, or another kernel, copy or set.
struct DeviceWork {
  TimeNs start = 0, end = 0;
  TimeNs launch = kNoLaunch;  // the host's launch call, when the trace has it
  int step = -1;              // the step its launch (else its start) falls in
};

// An NCCL kernel. Until the kernel is matched with its peers' (analyzer/comm), it is all
// transfer; once matched, [start, transferStart) is waiting for its peers, which is idle.
struct CommKernel : DeviceWork {
  TimeNs transferStart = 0;
  // The NCCL calls it serves (one, or a group's): RankOps::commCalls[callBegin, callEnd).
  uint32_t callBegin = 0, callEnd = 0;
  bool matched = false;
  uint32_t kernel = 0;    // index into the rank's kernel table, for the viewer's stream rows
  TracedMembers members;  // a collective with members the run does not trace: its wait is partial
};

struct StepMarker {
  int64_t number = 0;
  TimeNs start = 0, end = 0;
};

// Everything recognised on one rank.
struct RankOps {
  std::string ruleSet;                 // which rule set recognised it ("" = none)
  bool mbInferred = false;             // microbatch ids counted by order, not read from labels
  std::optional<int> stageFromLabels;  // a stage id the labels themselves carry
  std::vector<RecognizedOp> ops;       // sorted by start
  std::vector<RecognizedComm> comms;   // sorted by start
  // Empty, or one per comm: when the host posted comms[i] (its range began, or its kernel's
  // launch; kNoLaunch when the trace lacks it). Empty: each was posted as it began, as every
  // comm of an op-level timeline was (rank_order.h keeps the two in step).
  std::vector<TimeNs> commLaunches;
  std::vector<StepMarker> steps;  // sorted by start
  std::vector<Interval> optimizer, gradSync, otherBusy;
  std::vector<Interval> hostActivity;  // unrecognised ranges: evidence of a busy host
  // What each was: hostActivity[i] is named hostNames[hostActivityName[i]] (a few names, many
  // ranges), for the blame's "the host was in `dataloader`".
  std::vector<uint32_t> hostActivityName;
  std::vector<std::string> hostNames;

  // GPU work, when the trace has kernels (else the ranges above stand for it).
  bool hasKernels = false;
  std::vector<Interval> computeKernels;  // kernels launched inside an op, grouped by op
  // Empty, or one per op: ops[i]'s kernels are opKernels[i] (whoever reorders ops reorders both).
  std::vector<OpKernels> opKernels;
  // Empty, or one per op: the host range of ops[i]. Empty: each op's is its span [start, end), as
  // every op of an op-level timeline's is (16 bytes an op, a third of an op, were 51 MB of 10,000
  // replicas; rank_order.h keeps the two in step). hostOf reads it.
  std::vector<HostSpan> opHosts;
  std::vector<CommKernel> commKernels;   // NCCL kernels, sorted by start
  std::vector<int32_t> commCalls;        // their calls: indexes into the trace's ncclCalls
  std::vector<DeviceWork> otherKernels;  // everything else (optimizer, memcpy), sorted by start
  // Every compute (not NCCL) kernel, sorted by start, for a rank with device memory samples only:
  // the free-memory look reads the windows between them (stage_memory.h). Taken here, 16 bytes a
  // kernel, so that the trace's kernel table and names need not be held through the analysis.
  std::vector<Interval> kernelsForMemory;

  // Op i's kernels: none, and no launch call, where the trace has no kernels.
  OpKernels kernelsOf(size_t i) const { return opKernels.empty() ? OpKernels{} : opKernels[i]; }
  // Op i's host range.
  HostSpan hostOf(size_t i) const {
    return opHosts.empty() ? HostSpan{ops[i].start, ops[i].end} : opHosts[i];
  }
  // When comm i was posted.
  TimeNs launchOf(size_t i) const {
    return commLaunches.empty() ? comms[i].start : commLaunches[i];
  }
};

}  // namespace bubblescope::analysis
