#pragma once
// Seeded placements of one fault each on a generated job (issue 26's sweep): every fault kind on
// every stage (every link, both directions) and, for faults of one op, in every phase of the
// stage's step, on 1F1B with fused and with unfused p2p posts, on ZB-V and on interleaved 1F1B,
// clocks skewed. The seed
// draws the op within the phase, its step, the fault's size and the clock skews, so a placement
// that fails is replayed from the seed alone.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/result/idle_class.h"
#include "tests/tracegen/execution.h"
#include "tests/tracegen/pp_job.h"

namespace bubblescope::tracegen {

// The job shapes swept: torch's 1F1B with fwd_send_bwd_recv fused or each call alone, ZB-V,
// interleaved 1F1B (two chunks per stage, looped).
enum class SweepJob : uint8_t { OneF1BFused, OneF1BUnfused, ZbV, Interleaved };

enum class FaultKind : uint8_t {
  None,             // the job as it is: the baseline every fault is measured against
  SlowStage,        // every op of one stage slower (imbalance)
  HostStall,        // the host late to launch one op (LateLaunch)
  HostStallAtPost,  // the host late to post one op's receive (LateLaunch::beforeInputPost)
  SlowLink,         // every transfer on one direction of one link slower (comm stall)
  // A slow link, and its receiver's host late, by less than the link's extra, to post one
  // receive from it (a loaded host under a degraded link): the link's comm stall is the larger.
  SlowLinkLatePost,
  // The same late, on the slow link's sender, to post one receive from the link's receiver:
  // with fused posts (1F1B's send_forward_recv_backward) the late batch carries a send on the
  // slow link, which begins late by that much.
  SlowLinkSenderLatePost,
};

// Where in its stage's step an op runs: the forwards before the stage's first backward, then up
// to its last forward, then after it. Whole: a fault on every op (a slow stage or link).
enum class Phase : uint8_t { Warmup, Steady, Drain, Whole };

const char* sweepJobName(SweepJob job);
const char* faultKindName(FaultKind kind);
const char* phaseName(Phase phase);

// Where a fault goes, before the seed says which op and how large.
struct Slot {
  std::string name;  // "OneF1BFused_HostStallAtPost_Stage1_Steady": the same for every seed
  SweepJob job = SweepJob::OneF1BFused;
  FaultKind kind = FaultKind::None;
  Phase phase = Phase::Whole;
  int stage = -1;  // the faulted stage; a slow link's sender
  int peer = -1;   // a slow link's receiver
};

struct Placement {
  Slot slot;
  std::string where;  // what the seed drew: "F5 of step 1, 45.2 ms (host 33.1 ms ahead)"
  JobSpec spec;
  // The class of the idle it causes (none: no fault), and the stages a culprit may name (a slow
  // link: either end).
  std::optional<analysis::IdleClass> cls;
  std::vector<int> culpritStages;
};

// The job a sweep job's placements start from: p = 4, m = 8, 3 steps, no fault.
JobSpec sweepBase(SweepJob job);

// The ops of `stage`'s order (one step) that fall in `phase`.
std::vector<StageOp> opsInPhase(const JobSpec& spec, int stage, Phase phase);

// Every slot of the sweep (cheap: nothing is run).
std::vector<Slot> sweepSlots();

// The slot's fault as `seed` draws it. The draw depends on the seed and the slot's name only, so
// adding a slot leaves the others where they were. A host stall too short for the device to feel
// (the host ran ahead, or the op had slack) is grown until the step does, a few times at most.
Placement place(const Slot& slot, uint64_t seed);

// How late, in `job`, the host of `op`'s stage posted the receive of its input from `from`, as
// the analysis measures it: after the stage was free of the ops before it in the step and the
// matching send had begun. 0 where the job has no such receive.
TimeNs postLateness(const JobTimeline& job, const OpId& op, int from);

// A draw in [0, n) from the seed and a name: for picking placements to run on other stacks.
uint64_t seededIndex(uint64_t seed, const std::string& name, uint64_t n);

}  // namespace bubblescope::tracegen
