#pragma once
// Running totals of a lane's time by kind (op kind for op lanes, idle class for gaps). A folded
// box takes the color of the kind that holds most of its time; with running totals that costs
// a subtraction per kind rather than a pass over every interval folded in, so a zoomed-out frame
// costs what is on screen, not what is in the run.
#include <cstddef>
#include <vector>

#include "traces/model/time.h"

namespace bubblescope::gui {

class KindTotals {
 public:
  KindTotals() = default;
  explicit KindTotals(int kinds) : kinds_(kinds), running_(static_cast<size_t>(kinds), 0) {}

  // Appends the next interval's time, one amount per kind (`amounts` has kinds() entries).
  void push(const TimeNs* amounts);
  int kinds() const { return kinds_; }
  size_t size() const { return kinds_ ? running_.size() / static_cast<size_t>(kinds_) - 1 : 0; }
  // Time of `kind` in intervals [first, last).
  TimeNs of(size_t first, size_t last, int kind) const { return at(last, kind) - at(first, kind); }
  // The kind with the most time in [first, last); the lowest on a tie.
  int dominant(size_t first, size_t last) const;

 private:
  TimeNs at(size_t i, int kind) const {
    return running_[i * static_cast<size_t>(kinds_) + static_cast<size_t>(kind)];
  }
  int kinds_ = 0;
  std::vector<TimeNs> running_;  // (size + 1) * kinds: totals of intervals [0, i)
};

}  // namespace bubblescope::gui
