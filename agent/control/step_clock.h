#pragma once
// How fast a process goes through its steps, from its step counter sampled by the control
// thread (every 100 ms): attach uses it to choose a first step far enough ahead that every rank
// is told before it gets there, and to turn N steps into a duration for ranks without steps.
#include <array>
#include <cstddef>
#include <cstdint>

namespace bubblescope::control {

class StepClock {
 public:
  // The counter's value at `nowNs` (monotonic); -1 while no step was seen.
  void observe(int64_t step, int64_t nowNs) {
    if (step < 0 || step == current_) return;
    if (current_ < 0 || step < current_) {
      // The first value (it changed before we looked) or a counter that went back: when this
      // step began is unknown, so it is only the base for the next change.
      count_ = 0;
      current_ = step;
      return;
    }
    changes_[next_] = {step, nowNs};
    next_ = (next_ + 1) % changes_.size();
    if (count_ < changes_.size()) ++count_;
    current_ = step;
  }

  int64_t step() const { return current_; }

  // Mean time per step over the last changes seen (up to 32); -1 until two were seen.
  int64_t periodNs() const {
    if (count_ < 2) return -1;
    const Change& newest = at(count_ - 1);
    const Change& oldest = at(0);
    return (newest.ns - oldest.ns) / (newest.step - oldest.step);
  }

  // How long ago the current step began (within one sample); -1 if unknown.
  int64_t sinceChangeNs(int64_t nowNs) const { return count_ > 0 ? nowNs - at(count_ - 1).ns : -1; }

 private:
  struct Change {
    int64_t step = -1;
    int64_t ns = 0;
  };
  // The i-th oldest of the changes kept.
  const Change& at(size_t i) const {
    return changes_[(next_ + changes_.size() - count_ + i) % changes_.size()];
  }

  std::array<Change, 32> changes_{};
  size_t count_ = 0;
  size_t next_ = 0;
  int64_t current_ = -1;
};

}  // namespace bubblescope::control
