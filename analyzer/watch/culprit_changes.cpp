#include "analyzer/watch/culprit_changes.h"

namespace bubblescope::analysis::watch {

std::vector<CulpritChange> CulpritChanges::observe(const StepReading& reading) {
  std::vector<CulpritChange> ends, starts;
  const std::string named = reading.culprit ? reading.culprit->key() : std::string();
  for (auto it = tracks_.begin(); it != tracks_.end();) {
    Track& t = it->second;
    if (it->first == named) {
      ++it;
      continue;
    }
    ++t.missedInRow;
    if (t.missedInRow < kConfirmSteps) {
      ++it;
      continue;
    }
    // Gone long enough: a started culprit has ended; a candidate that never started is dropped.
    if (t.started) ends.push_back({false, reading.step, t.firstStep, t.lastStep, t.culprit});
    it = tracks_.erase(it);
  }
  if (reading.culprit) {
    auto [it, added] = tracks_.try_emplace(named);
    Track& t = it->second;
    if (added || t.missedInRow > 0) t.seenInRow = 0;
    if (added) t.firstStep = reading.step;
    t.missedInRow = 0;
    t.lastStep = reading.step;
    ++t.seenInRow;
    if (added || !t.started) t.culprit = *reading.culprit;
    if (!t.started && t.seenInRow >= kConfirmSteps) {
      t.started = true;
      starts.push_back({true, reading.step, t.firstStep, t.lastStep, t.culprit});
    } else if (!t.started && t.seenInRow == 1) {
      t.firstStep = reading.step;  // a hiccup before does not date it
    }
    if (t.started) t.culprit.cost = reading.culprit->cost;
  }
  ends.insert(ends.end(), starts.begin(), starts.end());
  return ends;
}

std::vector<StepCulprit> CulpritChanges::active() const {
  std::vector<StepCulprit> out;
  for (const auto& [key, t] : tracks_) {
    if (t.started) out.push_back(t.culprit);
  }
  return out;
}

std::string changeLine(const CulpritChange& change) {
  std::string line = "step " + std::to_string(change.atStep) + "  ";
  if (change.started) {
    return line + "started: " + change.culprit.text() + ", from step " +
           std::to_string(change.firstStep);
  }
  return line + "ended: " + change.culprit.where() + ", steps " + std::to_string(change.firstStep) +
         "-" + std::to_string(change.lastStep);
}

}  // namespace bubblescope::analysis::watch
