#pragma once
// What an analysis finds (analysis.md §2-6): per pipeline, stage and step, the exact split of the
// step span into compute, exposed communication, other busy and idle, idle split by class, the
// gaps with their causes, the slowdown against the ideal schedule and the what-if table. Every
// report is a view of this struct; the JSON report carries all of it.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/result/idle_class.h"
#include "analyzer/result/idle_tally.h"
#include "analyzer/result/job_result.h"
#include "analyzer/result/memory_basis.h"
#include "analyzer/result/model_check.h"
#include "analyzer/result/root_cause.h"
#include "analyzer/result/split_series.h"
#include "analyzer/result/utilization_result.h"
#include "reference_engine/schedule/op.h"
#include "traces/model/time.h"

namespace bubblescope::analysis {

using engine::Op;
using engine::OpKind;

// The idle of the classes the ideal schedule leaves too (IdleClassInfo::scheduleOwn).
TimeNs scheduleOwnIdle(const IdleByClass& byClass);

// An op as it ran (clock-aligned), for timelines.
struct OpRecord {
  Op op;
  int stage = 0;
  int step = 0;  // index into PipelineResult::steps
  TimeNs start = 0, end = 0;
  TimeNs idealCost = 0;  // the mean cost of its kind and chunk over all stages and steps
};

// A transfer between stages, matched send to receive.
struct TransferRecord {
  OpKind pass = OpKind::F;  // F: activations, B: gradients
  int mb = 0;
  int fromStage = 0, toStage = 0;
  int step = 0;
  TimeNs sendStart = 0, sendEnd = 0;
  TimeNs recvStart = 0, recvEnd = 0;
};

// What caused a gap: the place the dependency chain behind it leads to.
struct Blame {
  IdleClass cause = IdleClass::OtherStall;
  // Where the cause is no stall (imbalance, jitter, a bubble), the class of the largest stall the
  // walk passed on its way there: what the gap's stall piece is, if it has one.
  std::optional<IdleClass> stallPassed;
  int stage = -1;        // where the cause is (-1: none, e.g. a pure warm-up)
  int toStage = -1;      // a comm stall: the link's receiver (its sender is `stage`)
  Op op;                 // the op there
  double costRatio = 0;  // the op's measured cost / its ideal cost, when it ran long
  std::string text;      // "stage 2 waited 3.1 ms for F mb=5 on stage 1, which ran 1.6x its ideal"
};

// One idle interval on one stage.
struct Gap {
  int stage = 0;
  int step = 0;
  TimeNs start = 0, end = 0;  // the interval; its idle time may be less (transfers inside)
  TimeNs idle = 0;
  IdleByClass byClass{};
  IdleClass dominant = IdleClass::Warmup;
  int nextOp = -1;  // index of the op that ended it among every op (PipelineResult::opOf); -1 for
                    // the drain
  Blame blame;
  int64_t freeMemory = traces::kBytesUnknown;  // least device bytes free in it (stage_memory.h)
};

// A gap as the bubble inventory and the free-memory look read it: a summary's analysis keeps
// one for every gap, and whole gaps only for those its reports list (PipelineResult::gapIndex).
struct Bubble {
  int stage = 0;
  int step = 0;
  TimeNs start = 0, end = 0, idle = 0;
  int64_t freeMemory = traces::kBytesUnknown;
};

// Idle a better balance or schedule could win back: not the ideal schedule's own bubbles.
TimeNs avoidableIdle(const Gap& g);
TimeNs avoidableIdle(const Split& s);

// The gap lists (the top gaps, a job's largest idle gaps) print milliseconds with two decimals:
// a gap with less than this to rank it by would read "0.00 ms", so no list holds one.
inline constexpr TimeNs kLeastListedGap = 5'000;

// An NCCL kernel that waited for its peers (analysis.md §2): [start, transferStart) is idle, in
// the gap `gap` and drawn in that gap's class; [transferStart, end) is the transfer. The viewer
// draws the kernel on its stream row in these two parts.
struct CommWait {
  int stage = 0;
  int rank = 0;         // index into the run: the stage's representative, whose kernel it is
  uint32_t kernel = 0;  // index into that rank's kernels
  TimeNs start = 0, transferStart = 0, end = 0;
  int gap = -1;           // index into PipelineResult::gaps
  TracedMembers members;  // a collective with members not traced: the wait for the traced ones
};

struct StepInfo {
  int64_t number = 0;
  // S and E: earliest op start (or host work before a stage's first op), latest end (optimizer
  // included).
  TimeNs start = 0, end = 0;
  TimeNs duration() const { return end - start; }
};

struct StageResult {
  int stage = 0;
  int rank = 0;            // the rank that represents the stage (the slowest of a TP group)
  std::vector<int> ranks;  // every rank of the stage
  Split total;             // over all analysed steps
  SplitSeries perStep;     // per analysed step
  double slowdown = 1;     // S_s: step time when only this stage keeps its measured costs / ideal
  // S_s from the bounds of a replay rather than one (over kReplayEveryStage stages, a stage
  // whose ops moved the step by under 0.1%: analyzer/idle/stage_alone.h).
  bool slowdownBounded = false;
  std::array<TimeNs, 4> meanCost{};  // mean measured op cost per kind (F, B, W, BW), 0 if absent
  // What its gaps' free memory measures (device_memory.h) and the device's capacity (0 unknown).
  MemoryBasis memoryBasis = MemoryBasis::NotRecorded;
  uint64_t deviceMemory = 0;
};

// One row of the what-if table.
struct WhatIf {
  std::string scenario;  // "measured", "balanced stages", "ZB-H1", "2x microbatches", ...
  std::string note;      // assumptions ("W taken as 50% of the measured BW"), or why n/a
  bool available = true;
  TimeNs stepTime = 0;
  double bubbleRate = 0;  // 1 - compute / (p * step time)
  double speedup = 1;     // measured step time / this step time
  bool trusted = true;    // false: built on a model that does not reproduce the job
  // Per stage, the most activations the scenario holds at once, in microbatches of the measured
  // job (held_activations.h: each until its W or BW ends; a half-size microbatch counts half).
  std::vector<double> activations;
  // The same in bytes, where the trace measured a microbatch's (ActivationSize); else empty.
  std::vector<int64_t> activationBytes;
};

// What one microbatch's activations take on each stage, read off the trace's live-tensor samples
// (analyzer/inventory/activation_size.h).
struct ActivationSize {
  std::vector<int64_t> perMicrobatch;  // bytes, per stage; empty when not measured
  std::string unknown;                 // why not: "no memory records", ...
};

struct ScheduleMatch {
  std::string name = "custom";  // the generator whose order matches ("1F1B", ...), else "custom"
  int p = 0, m = 0, v = 1;
  bool exact = false;
  bool splitsBackward = false;
};

struct PipelineResult {
  int dpRank = 0;
  // A summary's analysis of a job of many replicas lists a few whole (listed_replicas.h); each
  // other one keeps only its figures: `stages`, `steps`, `total`, the schedule, step times, S,
  // the model check and the culprit. Its records, gaps, root causes, what-ifs, bubble inventory
  // and activation size are empty.
  bool summarised = false;
  std::vector<StageResult> stages;
  std::vector<StepInfo> steps;
  Split total;  // all stages, all steps
  ScheduleMatch schedule;

  TimeNs stepTimeMeasured = 0;  // mean over steps
  TimeNs stepTimeIdeal = 0;     // T_ideal: mean costs everywhere, median transfers, measured tail
  TimeNs stepTimeStage = 0;     // T_stage: stage means
  TimeNs stepTimeOps = 0;       // T_ops: measured op costs, no stalls (mean over steps)
  double slowdown = 1;          // S = measured / ideal
  TimeNs transferMedian = 0;
  TimeNs tailMedian = 0;  // gradient sync + optimizer
  ModelCheck model;       // whether the replay of measured op costs reproduces the job

  // Every op, unless a summary's analysis kept only those its listed gaps end with: then `opIndex`
  // holds each one's index among every op (what Gap::nextOp says either way; opOf() finds it).
  // Every transfer, but none after a summary's analysis (KeptGaps::Listed).
  std::vector<OpRecord> ops;
  std::vector<int> opIndex;
  std::vector<TransferRecord> transfers;
  std::vector<Gap> gaps;
  // A summary's analysis (AnalyzeOptions::everyGapText false) keeps in `gaps` only the gaps its
  // reports list: the top gaps and each root cause's largest own and knock-on gaps, in their
  // order. Then `gapIndex` holds each one's index among every gap, `bubbles` every gap for the
  // inventory (or, where no memory look reads them, none: `bubbleTallies` counts them, a tally a
  // stage), and `commWaits` is empty. All empty: `gaps` holds every gap.
  std::vector<int> gapIndex;
  std::vector<Bubble> bubbles;
  std::vector<IdleTally> bubbleTallies;
  // Only waits inside the analysed steps' gaps: outside them a wait has no class to be drawn in.
  std::vector<CommWait> commWaits;  // by stage, then start
  std::vector<int> topGaps;         // indexes into gaps, largest avoidable idle first (at most 5)
  // The gaps' avoidable idle by root cause, the largest win first (idle/root_causes.h); none
  // with less idle than kLeastListedGap.
  std::vector<RootCause> rootCauses;
  // The ideal schedule (T_ideal) of one step, times from the step start: for ghost lanes.
  std::vector<OpRecord> idealOps;
  std::vector<WhatIf> whatIf;
  // Why the what-if table is empty: no step finished, or the run hung ("" when it is not).
  std::string whatIfWithheld;
  ActivationSize activationSize;
  // What to fix first, as the job's culprit line (whatif/pipeline_culprit.h).
  std::string culprit;
  int culpritStage = -1;
  TimeNs culpritGain = 0;

  // The op record of index `op` among every op (Gap::nextOp).
  const OpRecord& opOf(int op) const;
};

struct ClockInfo {
  bool enabled = true;
  std::vector<TimeNs> offsets;  // per rank (index into the run), added to its times
  TimeNs maxCorrection = 0;
};

// How the ops were found when no rule set recognised any (analysis.md §1b).
struct OpInference {
  bool fromP2p = false;    // "ops inferred from p2p traffic"
  std::string confidence;  // "high", "medium", "low"
  std::string evidence;    // "3 of 3 step(s) hold every microbatch's F and B ...; every step ..."
};

struct AnalysisResult {
  // 2: the bubble inventory's free device memory became an object per stage (`free_memory`:
  // basis, least and median bytes), where 1 had `free_memory_bytes`, always null.
  // 3: a summary by default (json_report.h): ops[], transfers[], gaps[], comm_waits[], per_step
  // and the root causes' index lists only with --detail; top_gaps holds the gaps themselves.
  // 4: every pipeline says whether it is `summarised`: a summary of more DP replicas than it lists
  // whole gives the others by their figures only (no bubble_inventory, ideal_step, root_causes,
  // top_gaps, what_if, activation size).
  static constexpr int kSchemaVersion = 4;
  std::string runDir;
  std::string command;
  int ranks = 0;
  int pp = 0, dp = 0, tp = 1;
  std::string topologySource;  // "metadata", "labels", "p2p", "rank order"
  std::string ruleSet;         // which rule set recognised the ops
  bool opsInferred = false;
  OpInference inference;
  uint64_t droppedEvents = 0;
  ClockInfo clock;
  // The capture's first step, left out as warm-up (AnalyzeOptions::leaveOutWarmupStep).
  std::optional<int64_t> warmupStepLeftOut;
  std::vector<PipelineResult> pipelines;
  // Across replicas and TP ranks (present only for jobs of more than one of either).
  JobResult job;
  // A job with no pipeline (pipelines empty): where each rank's device time went (§7).
  std::optional<UtilizationResult> utilization;
  std::vector<std::string> warnings;
};

}  // namespace bubblescope::analysis
