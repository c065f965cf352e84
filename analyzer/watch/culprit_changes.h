#pragma once
// A change that persists (a stage that became slow, a link that degraded) is reported once when
// it starts and once when it ends (issue 30), not on every step's line. A culprit has started
// when the same one (StepCulprit::key) is named in kConfirmSteps consecutive steps, dated from
// the first; it has ended when kConfirmSteps consecutive steps do not name it, dated at the last
// step that did. One step alone (a hiccup) starts nothing. Pure: readings in, changes out.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analyzer/watch/step_reading.h"

namespace bubblescope::analysis::watch {

inline constexpr int kConfirmSteps = 2;

struct CulpritChange {
  bool started = true;    // false: it ended
  int64_t atStep = 0;     // the step whose reading made it sure
  int64_t firstStep = 0;  // the first step that named it
  int64_t lastStep = 0;   // ended: the last step that named it
  StepCulprit culprit;    // as the first step named it (started) or the last (ended)
};

class CulpritChanges {
 public:
  // The changes the step makes sure of, in order (an end before a start).
  std::vector<CulpritChange> observe(const StepReading& reading);
  // The culprits that have started and not ended.
  std::vector<StepCulprit> active() const;

 private:
  struct Track {
    StepCulprit culprit;
    int64_t firstStep = 0, lastStep = 0;
    int seenInRow = 0;    // consecutive steps naming it, up to the last that did
    int missedInRow = 0;  // consecutive steps since that did not
    bool started = false;
  };
  std::map<std::string, Track> tracks_;
};

// "step 14  started: imbalance: stage 1 F +96.0 ms (2.01x), from step 13"
// "step 20  ended: imbalance: stage 1, steps 13-18"
std::string changeLine(const CulpritChange& change);

}  // namespace bubblescope::analysis::watch
