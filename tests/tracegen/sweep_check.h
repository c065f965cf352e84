#pragma once
// What issue 26's fault sweep asserts of one placement's analysis, as named checks that each pass
// or miss with the sentence that shows why, so the sweep can tell a new miss from a known one.
// The bounds are expect_found.h's: per stage idle and S within 2% of the truth, the model
// reproduces, the gap invariants on every gap; where the fault shows (the truth's S), the dominant
// avoidable class is the fault's, and the pipeline's culprit and its largest gap's blame name the
// faulted stage (a slow link: either end) and the fault's class; with no fault, no culprit and
// under 1% of the span avoidable.
#include <string>
#include <vector>

#include "tests/tracegen/placement.h"
#include "tests/tracegen/stack_analysis.h"

namespace bubblescope::tracegen {

struct Miss {
  std::string check;  // "idle", "slowdown", "model", "invariants", "dominant", "culprit", "blame"
  std::string message;
};

// A fault that makes the step less than this much longer than the same job's without it is
// absorbed by slack, or falls between steps (a step's first op delayed delays the whole step,
// outside its span): the analysis has nothing to name, and only its figures and invariants are
// checked.
inline constexpr double kFaultShows = 1.01;

// The placement's mean step over its job's without the fault, in the truth.
double faultCost(const Placement& p, const Truth& truth);

std::vector<Miss> sweepMisses(const StackRun& run, const Placement& p);

}  // namespace bubblescope::tracegen
