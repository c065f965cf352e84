#pragma once
// When each of the last steps began, as the agent saw their `step N` ranges open: a memory
// window that prunes its oldest records (a watch's) can then say from which step on it holds every
// step whole, and a watch that fell behind says so instead of analysing a step whose start is gone.
// Pure; the recorder keeps one under its lock.
#include <array>
#include <cstddef>
#include <cstdint>

namespace bubblescope::agent {

class StepStarts {
 public:
  // Step `step` began at `ns` (CLOCK_REALTIME, as the window's records).
  void note(int64_t step, int64_t ns) {
    starts_[next_] = {step, ns};
    next_ = (next_ + 1) % starts_.size();
    if (count_ < starts_.size()) ++count_;
  }

  // The first step, after the last one that began before `heldFromNs`, that began at or after it:
  // from it on, every step's start is held. -1 when that is not known: no step began before
  // `heldFromNs` among the ones kept (the window may hold steps older than the oldest kept), or
  // none began since.
  int64_t wholeFrom(int64_t heldFromNs) const {
    // Kept in the order they began: the newest that began before `heldFromNs`, then the next.
    for (size_t i = count_; i-- > 0;) {
      if (at(i).ns >= heldFromNs) continue;
      return i + 1 < count_ ? at(i + 1).step : -1;
    }
    return -1;
  }

 private:
  struct Start {
    int64_t step = -1;
    int64_t ns = 0;
  };
  // The i-th oldest kept.
  const Start& at(size_t i) const {
    return starts_[(next_ + starts_.size() - count_ + i) % starts_.size()];
  }

  std::array<Start, 64> starts_{};
  size_t count_ = 0, next_ = 0;
};

}  // namespace bubblescope::agent
