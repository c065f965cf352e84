#pragma once
// One stage's step, split (analysis.md §2) and its idle classified gap by gap (§3).
//
// Each gap (before an op, or after the last one) belongs to a phase of the stage's step: warm-up
// up to its first backward, drain (cool-down) after its last forward, steady in between. It is
// compared with the same gap in three
// simulations of the observed order: ideal costs, stage means, measured op costs. Its idle time
// fills, in order, what the ideal schedule also leaves (the warm-up, steady-schedule or drain
// bubble of its phase), what
// stage means add (imbalance), what per-op costs add (jitter), and what the simulations cannot
// explain (stall: comm, host or other, by the evidence the blame walk finds). The amounts are
// non-negative and add up to the gap's idle exactly.
#include <vector>

#include "analyzer/idle/blame.h"
#include "analyzer/idle/scenarios.h"
#include "analyzer/result/dp_wait.h"
#include "analyzer/result/result.h"

namespace bubblescope::analysis {

struct StepSims {
  engine::SimResult ideal, stage, ops;
};

// Idle of one gap in the order the classes fill it. `measured` is the gap's idle, the others the
// same gap in the simulations.
IdleByClass fillLevels(TimeNs measured, TimeNs ideal, TimeNs stageMeans, TimeNs measuredCosts,
                       IdleClass baseline, IdleClass stallKind);

// Splits `stage` of the step and appends its gaps (stage, step index, op positions, blame) to
// `gaps`, and the words of each one's sentence to `words` (gap_sentence.h writes them).
// `dpWait`: how long the stage waited at the DP sync for a later replica (none: one replica).
Split classifyStageStep(const PipelineTrace& pipeline, const StepView& step, int stage,
                        const StepSims& sims, const BlameWalker& blame, std::vector<Gap>& gaps,
                        std::vector<BlameWords>& words, const DpWait* dpWait = nullptr);

// Moves up to `dpWait.wait` of a drain gap's stall (other, then host: what the pipeline's own
// replays leave unexplained) into "wait: DP sync", and blames the gap on the later replica when
// that is now its largest piece (in gap.blame and `words`). Returns what it moved.
TimeNs chargeDpWait(Gap& drainGap, BlameWords& words, const DpWait& dpWait);

}  // namespace bubblescope::analysis
