#pragma once
// Whether the analysis' model reproduces the job it measured: each step's observed op order
// re-run with its measured op costs (and the step's measured tail). What the replay leaves out
// (stalls) can only make the job slower than the replay, and is found as stall idle; a replay
// slower than the job means the model assumes a dependency or a cost the job did not have, and
// every what-if built on it is to be doubted. The reports say so before anything else.
#include <string>
#include <utility>

#include "traces/model/time.h"

namespace bubblescope::analysis {

// How much slower than the job the replay may be: noise of launches and clocks.
inline constexpr double kModelTolerance = 0.02;

struct ModelCheck {
  TimeNs measured = 0;  // mean measured step over the analysed steps
  TimeNs replayed = 0;  // mean replayed step
  bool reproduces = true;
  // Where the replay disagrees most with the job, in a sentence ("the replay starts F3 on stage
  // 1 in step 23 1.21 s later than it ran"); "" when it never runs anything later.
  std::string largest;
  double excess() const {  // the replay's excess over the measured step, as a fraction
    return measured > 0 ? static_cast<double>(replayed - measured) / static_cast<double>(measured)
                        : 0.0;
  }
};

// The check of `measured` against `replayed` (mean steps), with its largest disagreement.
inline ModelCheck checkModel(TimeNs measured, TimeNs replayed, std::string largest) {
  ModelCheck c{measured, replayed, true, std::move(largest)};
  c.reproduces = c.excess() <= kModelTolerance;
  return c;
}

// "the observed order re-run with the measured op costs takes 10.94 s a step against 9.10 s
// measured (+20.1%)": the first sentence of a failed check, for every report.
std::string modelCheckSentence(const ModelCheck& check);

}  // namespace bubblescope::analysis
