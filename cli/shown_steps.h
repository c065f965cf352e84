#pragma once
// Which steps `view --attach` shows of a job's memory windows: the newest finished ones that the
// agents still hold whole. Older steps scroll out as the agents prune them, so what the viewer
// holds stays bounded however long the job runs. Pure: no I/O, unit-tested.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace bubblescope::cli {

// How many of the newest finished steps a window keeping `keepNs` still holds whole, for steps
// of `periodNs` (0 when unknown). Events that ended more than keep ago are pruned; the newest
// finished step began at most two steps before the poll, each older one a step earlier, and a
// step more is left for ranks whose steps start apart (stage 0 leads the last by its warm-up).
size_t wholeSteps(int64_t keepNs, int64_t periodNs);

class ShownSteps {
 public:
  // Steps that finished since the last poll, in order, each newer than those added before.
  void add(const std::vector<int64_t>& finished);
  // Keeps the newest `capacity` (at least one).
  void bound(size_t capacity);
  // Drops those before `step`: some agent no longer holds them whole (held_steps.h). May leave
  // none.
  void dropBefore(int64_t step);

  bool empty() const { return steps_.empty(); }
  size_t size() const { return steps_.size(); }
  int64_t first() const { return steps_.front(); }
  int64_t last() const { return steps_.back(); }

 private:
  std::deque<int64_t> steps_;
};

}  // namespace bubblescope::cli
