#include "analyzer/pipeline/clock_align.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>

namespace bubblescope::analysis {
namespace {

constexpr TimeNs kNone = std::numeric_limits<TimeNs>::min();
constexpr TimeNs kOpen = std::numeric_limits<TimeNs>::max();

// What the transfers between stage s and s + 1 say of d = off[s+1] - off[s]: each activation
// sent down asks d >= its bound, each gradient sent back d <= its own. A bound is tight only where
// its receive was posted before its send began, and so waited for the data: its end is when the
// data arrived. A receive posted after the data was there ends at once, long after the arrival,
// and bounds d only loosely (by how late it was posted: the slow stage's receives, which never
// wait). `waited`: the d from which on (gradients) or up to which (activations) it waited.
struct Bound {
  TimeNs value = 0;
  TimeNs waited = 0;
};
struct LinkBounds {
  std::vector<Bound> atLeast, atMost;
  TimeNs lower = kNone;  // the largest of atLeast
  TimeNs upper = kOpen;  // the smallest of atMost
  void addAtLeast(Bound a) {
    lower = std::max(lower, a.value);
    atLeast.push_back(a);
  }
  void addAtMost(Bound u) {
    upper = std::min(upper, u.value);
    atMost.push_back(u);
  }
  bool contradict() const { return lower != kNone && upper != kOpen && lower > upper; }
};

// No correction beyond what causality demands: zero where the bounds allow it. Else the violated
// bound, moved towards the middle of the feasible interval only as far as a bound on the other
// side that is tight allows: two tight bounds hold the skew between them, one transfer's
// latency either way; a loose one would shift the clock by half of how late its receive was
// posted (a 53 µs violation read as a 2 ms skew).
TimeNs offsetWithin(const LinkBounds& b) {
  const TimeNs lower = b.lower, upper = b.upper;
  const bool hasLower = lower != kNone, hasUpper = upper != kOpen;
  if (hasLower && lower > 0) {
    TimeNs tight = kOpen;
    for (const Bound& u : b.atMost) {
      if (u.value >= lower && u.waited <= lower) tight = std::min(tight, u.value);
    }
    if (!hasUpper || tight == kOpen) return lower;
    return std::min(upper, lower + (tight - lower) / 2);
  }
  if (hasUpper && upper < 0) {
    TimeNs tight = kNone;
    for (const Bound& a : b.atLeast) {
      if (a.value <= upper && a.waited >= upper) tight = std::max(tight, a.value);
    }
    if (!hasLower || tight == kNone) return upper;
    return std::max(lower, upper - (upper - tight) / 2);
  }
  return 0;
}

// Transfers that contradict each other (a pair matched wrongly, a clock that drifted during the
// capture) leave no offset that fits them all; one of them, a window apart, would shift the
// stage by the window. The offset is chosen as where all fit, among the most transfers that fit
// one offset (those nearest zero); the others are left out and said.
struct Contested {
  TimeNs offset = 0;
  size_t leftOut = 0;
  TimeNs worst = 0;  // how far the farthest left-out transfer is from fitting
};
Contested fitMost(const LinkBounds& b) {
  std::vector<TimeNs> atLeast, atMost;
  for (const Bound& a : b.atLeast) atLeast.push_back(a.value);
  for (const Bound& u : b.atMost) atMost.push_back(u.value);
  std::sort(atLeast.begin(), atLeast.end());
  std::sort(atMost.begin(), atMost.end());
  auto violated = [&](TimeNs d) {
    const size_t low =
        static_cast<size_t>(atLeast.end() - std::upper_bound(atLeast.begin(), atLeast.end(), d));
    const size_t high =
        static_cast<size_t>(std::lower_bound(atMost.begin(), atMost.end(), d) - atMost.begin());
    return low + high;
  };
  Contested best;
  best.leftOut = violated(0);
  std::vector<TimeNs> candidates = atLeast;
  candidates.insert(candidates.end(), atMost.begin(), atMost.end());
  for (TimeNs d : candidates) {
    const size_t v = violated(d);
    const bool nearer = std::abs(d) < std::abs(best.offset);
    if (v < best.leftOut || (v == best.leftOut && nearer)) {
      best.offset = d;
      best.leftOut = v;
    }
  }
  // Among the transfers that fit, the same rule as where all fit.
  LinkBounds fit;
  for (const Bound& a : b.atLeast) {
    if (a.value <= best.offset) fit.addAtLeast(a);
  }
  for (const Bound& u : b.atMost) {
    if (u.value >= best.offset) fit.addAtMost(u);
  }
  best.offset = offsetWithin(fit);
  best.leftOut = violated(best.offset);
  for (TimeNs a : atLeast) best.worst = std::max(best.worst, a - best.offset);
  for (TimeNs u : atMost) best.worst = std::max(best.worst, best.offset - u);
  return best;
}

std::string msText(TimeNs ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f ms", static_cast<double>(ns) / 1e6);
  return text;
}

}  // namespace

std::vector<TimeNs> estimateClockOffsets(const PipelineTrace& pl,
                                         std::vector<std::string>* warnings) {
  const int p = static_cast<int>(pl.stages.size());
  std::vector<LinkBounds> links(p);  // links[s]: what the transfers say of off[s+1] - off[s]
  for (size_t i = 0; i < pl.transferCount(); ++i) {
    const Transfer t = pl.transfer(i);
    if (std::abs(t.fromStage - t.toStage) != 1) continue;  // neighbours only: the chain
    const auto& send = pl.stages[t.fromStage].ops.comms[t.send];
    const auto& recv = pl.stages[t.toStage].ops.comms[t.recv];
    // recv.end + off[to] >= send.start + off[from]: off[to] - off[from] >= bound. The receive
    // was posted first where recv.start + off[to] <= send.start + off[from].
    const TimeNs bound = send.start - recv.end, posted = send.start - recv.start;
    if (t.toStage == t.fromStage + 1) {
      links[t.fromStage].addAtLeast({bound, posted});
    } else {
      links[t.toStage].addAtMost({-bound, -posted});
    }
  }
  std::vector<TimeNs> offsets(p, 0);
  for (int s = 0; s + 1 < p; ++s) {
    TimeNs d = offsetWithin(links[s]);
    if (links[s].contradict()) {
      const Contested c = fitMost(links[s]);
      d = c.offset;
      if (warnings != nullptr) {
        const size_t all = links[s].atLeast.size() + links[s].atMost.size();
        warnings->push_back(
            "clock alignment: " + std::to_string(c.leftOut) + " of " + std::to_string(all) +
            " transfers between stage " + std::to_string(s) + " and stage " +
            std::to_string(s + 1) + " contradict the others (by up to " + msText(c.worst) +
            ": matched to the wrong partner, or a clock that drifted during the capture); the "
            "offset fits the others and leaves them out");
      }
    }
    offsets[s + 1] = offsets[s] + d;
  }
  return offsets;
}

void shiftTimes(RankOps& ops, TimeNs d) {
  if (d == 0) return;
  for (auto& o : ops.ops) {
    o.start += d;
    o.end += d;
  }
  for (HostSpan& h : ops.opHosts) {
    h.launch += d;
    h.end += d;
  }
  for (auto& k : ops.opKernels) {
    if (k.firstLaunch != kNoLaunch) k.firstLaunch += d;
  }
  for (auto& c : ops.comms) {
    c.start += d;
    c.end += d;
  }
  for (TimeNs& l : ops.commLaunches) {
    if (l != kNoLaunch) l += d;
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
                     &ops.computeKernels, &ops.kernelsForMemory}) {
    for (auto& i : *list) {
      i.start += d;
      i.end += d;
    }
  }
}

}  // namespace bubblescope::analysis
