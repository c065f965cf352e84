#include "analyzer/pipeline/clock_align.h"

#include <algorithm>
#include <limits>

namespace bubblescope::analysis {

std::vector<TimeNs> estimateClockOffsets(const PipelineTrace& pl) {
  const int p = static_cast<int>(pl.stages.size());
  constexpr TimeNs kNone = std::numeric_limits<TimeNs>::min();
  // lower[s]: the largest lower bound on off[s+1] - off[s]; upper[s]: the smallest upper bound.
  std::vector<TimeNs> lower(p, kNone), upper(p, std::numeric_limits<TimeNs>::max());
  for (const Transfer& t : pl.transfers) {
    if (std::abs(t.fromStage - t.toStage) != 1) continue;  // neighbours only: the chain
    const auto& send = pl.stages[t.fromStage].ops.comms[t.send];
    const auto& recv = pl.stages[t.toStage].ops.comms[t.recv];
    // recv.end + off[to] >= send.start + off[from]
    const TimeNs bound = send.start - recv.end;  // off[to] - off[from] >= bound
    if (t.toStage == t.fromStage + 1) {
      lower[t.fromStage] = std::max(lower[t.fromStage], bound);
    } else {
      upper[t.toStage] = std::min(upper[t.toStage], -bound);  // off[from]-off[to] >= bound
    }
  }
  std::vector<TimeNs> offsets(p, 0);
  for (int s = 0; s + 1 < p; ++s) {
    TimeNs d = 0;
    const bool hasLower = lower[s] != kNone;
    const bool hasUpper = upper[s] != std::numeric_limits<TimeNs>::max();
    if (hasLower && lower[s] > 0)
      d = hasUpper && upper[s] >= lower[s] ? (lower[s] + upper[s]) / 2 : lower[s];
    if (hasUpper && upper[s] < 0)
      d = hasLower && lower[s] <= upper[s] ? (lower[s] + upper[s]) / 2 : upper[s];
    offsets[s + 1] = offsets[s] + d;
  }
  return offsets;
}

void shiftTimes(RankOps& ops, TimeNs d) {
  if (d == 0) return;
  for (auto& o : ops.ops) {
    o.start += d;
    o.end += d;
    o.launch += d;
    o.hostEnd += d;
    if (o.firstLaunch != kNoLaunch) o.firstLaunch += d;
  }
  for (auto& c : ops.comms) {
    c.start += d;
    c.end += d;
    c.launch += d;
  }
  for (auto& w : ops.otherKernels) {
    w.start += d;
    w.end += d;
    if (w.launch != kNoLaunch) w.launch += d;
  }
  for (auto& w : ops.commKernels) {
    w.start += d;
    w.end += d;
    w.transferStart += d;
    if (w.launch != kNoLaunch) w.launch += d;
  }
  for (auto& s : ops.steps) {
    s.start += d;
    s.end += d;
  }
  for (auto* list : {&ops.optimizer, &ops.gradSync, &ops.otherBusy, &ops.hostActivity,
                     &ops.computeKernels}) {
    for (auto& i : *list) {
      i.start += d;
      i.end += d;
    }
  }
}

}  // namespace bubblescope::analysis
