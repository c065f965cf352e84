#pragma once
// Faults the engine injects on purpose, so that a profiler's answer can be checked against a known
// cause: a slow stage, a stalled or busy host, a slow link, op-to-op jitter, a crashing stage.
// Parsing the command-line forms is pure and lives here; the stage runner applies them.
// A slow stage, a stall and a comm delay may be confined to a range of steps (`@FROM[-TO]`), so
// that a fault has a known onset and end for a live watcher to find.
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace bubblescope::engine {

// A malformed or out-of-range fault flag. The message names the flag and the expected form.
class FaultSpecError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Steps FROM..TO-1 as the engine numbers them (its `step N` ranges), TO exclusive; to the run's
// end when TO is absent.
struct StepRange {
  int from = 0;
  std::optional<int> to;

  bool contains(int step) const { return step >= from && (!to || step < *to); }
  bool overlaps(const StepRange& other) const;
};

// Whether a fault confined to `range` (every step when absent) applies in `step`.
inline bool inSteps(const std::optional<StepRange>& range, int step) {
  return !range || range->contains(step);
}

struct SlowStage {
  int stage = 0;
  double factor = 1.0;                            // every op cost on the stage is multiplied by it
  std::optional<StepRange> steps = std::nullopt;  // every step when absent
};

// The stage waits `ms` just before its first op of microbatch `mb`, after that op's inputs
// arrived. Used for --stall (idle, no range open) and --host-stall (busy, inside `dataloader`).
struct Stall {
  int stage = 0;
  int mb = 0;
  double ms = 0;
  std::optional<int> step;                        // the :STEP form: that step only
  std::optional<StepRange> steps = std::nullopt;  // the @FROM[-TO] form (every step: neither)

  bool hits(int stage, int step, int mb) const;
};

struct CommDelay {
  int stage = 0;
  double ms = 0;  // every activation or gradient the stage sends is held this long
  std::optional<StepRange> steps = std::nullopt;  // every step when absent
};

struct Crash {
  int stage = 0;
  int mb = 0;
  int step = 0;
};

// The stage runs its first op of microbatch `mb` late (in every step): after the next of its own
// ops that needs the neighbour to have received it first (order_fault.h), so the two stages'
// orders disagree and the pipeline deadlocks.
struct Mismatch {
  int stage = 0;
  int mb = 0;
};

// The stage stops just before its first op of microbatch `mb` in `step` and never returns.
struct Hang {
  int stage = 0;
  int mb = 0;
  int step = 0;
};

// The stage's process starts `seconds` late: it makes no call (no NVTX range, no transfer) until
// then, as a rank on a node slow to come up (a checkpoint loading, a container pulling); its
// neighbours wait for it in their first receives.
struct LateStart {
  int stage = 0;
  double seconds = 0;
};

struct Faults {
  std::vector<SlowStage> slowStages;
  std::vector<Stall> stalls;
  std::vector<Stall> hostStalls;
  std::vector<CommDelay> commDelays;
  double jitterPct = 0;  // each op cost × (1 + u), u uniform in ±jitterPct %
  std::vector<Crash> crashes;
  std::vector<Mismatch> mismatches;
  std::vector<Hang> hangs;
  std::vector<LateStart> lateStarts;

  // The run is meant never to finish (the watchdog ends it).
  bool deadlocks() const { return !mismatches.empty() || !hangs.empty(); }
  // What the stage's faults come to in `step`: a scan of a handful of entries, cheap enough for
  // every op (a stage has at most one matching entry per step: parseFaults rejects overlaps).
  double slowFactor(int stage, int step) const;
  double commDelayMs(int stage, int step) const;
  double lateStartSeconds(int stage) const;
};

// What a flag may refer to: stages [0, p), microbatches [0, m), steps [0, steps).
struct FaultBounds {
  int p = 1;
  int m = 1;
  int steps = 1;
};

// The repeatable flags as typed. `@FROM[-TO]`: steps FROM..TO-1 only (TO exclusive), or FROM on.
struct FaultFlags {
  std::vector<std::string> slowStage;  // S:FACTOR[@FROM[-TO]]
  std::vector<std::string> stall;      // S:MB:MS[:STEP][@FROM[-TO]], not both STEP and a range
  std::vector<std::string> hostStall;  // S:MB:MS[:STEP][@FROM[-TO]], not both STEP and a range
  std::vector<std::string> commDelay;  // S:MS[@FROM[-TO]]
  std::vector<std::string> crash;      // S:MB[:STEP]
  std::vector<std::string> mismatch;   // S:MB
  std::vector<std::string> hang;       // S:MB[:STEP]
  std::vector<std::string> lateStart;  // S:SECONDS
  double jitterPct = 0;
};

SlowStage parseSlowStage(std::string_view text, const FaultBounds& bounds);
Stall parseStall(std::string_view flag, std::string_view text, const FaultBounds& bounds);
CommDelay parseCommDelay(std::string_view text, const FaultBounds& bounds);
Crash parseCrash(std::string_view text, const FaultBounds& bounds);
Mismatch parseMismatch(std::string_view text, const FaultBounds& bounds);
Hang parseHang(std::string_view text, const FaultBounds& bounds);
LateStart parseLateStart(std::string_view text, const FaultBounds& bounds);
// All flags at once; also rejects a stage given twice to --slow-stage or --comm-delay unless its
// step ranges do not overlap.
Faults parseFaults(const FaultFlags& flags, const FaultBounds& bounds);

}  // namespace bubblescope::engine
