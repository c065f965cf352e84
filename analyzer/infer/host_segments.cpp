#include "analyzer/infer/host_segments.h"

#include <algorithm>

namespace bubblescope::analysis {
namespace {

using engine::OpKind;

struct Stretch {
  TimeNs start = 0, end = 0;
  RunKinds kinds;
  bool openedByTransfer = false;  // a send or receive, not a collective, began it
};

TimeNs median(std::vector<TimeNs> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

int kindIndex(OpKind k) {
  return k == OpKind::F ? 0 : 1;
}

// The named ranges, sorted by start, with the ones that begin in a window found by binary search:
// a stretch looks only at its own (a CPU trace may hold a range per library call).
class NamedRanges {
 public:
  explicit NamedRanges(std::vector<Interval> ranges) : ranges_(std::move(ranges)) {
    std::sort(ranges_.begin(), ranges_.end(),
              [](const Interval& a, const Interval& b) { return a.start < b.start; });
  }
  // Those beginning in [from, to].
  std::pair<const Interval*, const Interval*> beginningIn(TimeNs from, TimeNs to) const {
    auto byStart = [](const Interval& r, TimeNs t) { return r.start < t; };
    auto first = std::lower_bound(ranges_.begin(), ranges_.end(), from, byStart);
    auto last = std::lower_bound(first, ranges_.end(), to + 1, byStart);
    return {ranges_.data() + (first - ranges_.begin()), ranges_.data() + (last - ranges_.begin())};
  }

 private:
  std::vector<Interval> ranges_;
};

// Host time beyond what its op(s) take on this stage (`expected`, 0 = unknown) that a named range
// at the stretch's start or end accounts for is not the op: cut it off. "At the start": within a
// tenth of the op's time of it, as a thread the scheduler held up a little opens it late. Named
// ranges in a stretch of the usual length are the op's own (a CPU job's library calls) and stay.
Interval trimmed(Interval s, TimeNs expected, const NamedRanges& named, TimeNs gap) {
  if (expected <= 0) return s;
  const TimeNs slack = std::max(gap, expected / 10);
  while (s.end - s.start > expected + slack) {
    bool moved = false;
    auto [first, last] = named.beginningIn(s.start - slack, s.end);
    for (const Interval* r = first; r != last && !moved; ++r) {
      if (r->start <= s.start + slack && r->end > s.start && r->end < s.end) {
        s.start = r->end;  // began with the stretch
        moved = true;
      } else if (r->start > s.start && r->end + slack >= s.end && r->end <= s.end + slack) {
        s.end = r->start;  // ended with it
        moved = true;
      }
    }
    if (!moved) break;
  }
  return s;
}

}  // namespace

HostSegmentation segmentHostTime(std::vector<HostCall> calls, std::vector<Interval> namedRanges,
                                 std::array<TimeNs, 2> fallback, TimeNs gap) {
  HostSegmentation out;
  const NamedRanges named(std::move(namedRanges));
  std::sort(calls.begin(), calls.end(),
            [](const HostCall& a, const HostCall& b) { return a.start < b.start; });
  // Groups of calls posted together, and the stretches between them.
  struct Group {
    TimeNs start, end;
    CallGroup calls;
  };
  std::vector<Group> groups;
  for (const HostCall& c : calls) {
    if (groups.empty() || c.start - groups.back().end >= gap)
      groups.push_back({c.start, c.end, {}});
    Group& g = groups.back();
    g.end = std::max(g.end, c.end);
    g.calls.has[static_cast<int>(c.kind)] = true;
  }
  std::vector<Stretch> stretches;
  for (size_t i = 0; i + 1 < groups.size(); ++i) {
    if (groups[i + 1].start - groups[i].end < gap) continue;  // host work of its own, no op
    const CallGroup& opening = groups[i].calls;
    const bool transfer = opening[CutKind::ActIn] || opening[CutKind::ActOut] ||
                          opening[CutKind::GradIn] || opening[CutKind::GradOut];
    stretches.push_back({groups[i].end, groups[i + 1].start,
                         kindsBetween(&opening, &groups[i + 1].calls), transfer});
  }
  out.stretches = static_cast<int>(stretches.size());

  // How long one op takes here: the median stretch of one op (a few stalled ones do not move it).
  std::vector<TimeNs> durations[2];
  for (const Stretch& s : stretches) {
    if (s.kinds.first && !s.kinds.second)
      durations[kindIndex(*s.kinds.first)].push_back(s.end - s.start);
  }
  for (int k = 0; k < 2; ++k) out.nsPerOp[k] = median(durations[k]);

  for (const Stretch& raw : stretches) {
    if (!raw.kinds.first) {
      ++out.unclassified;
      out.other.push_back({raw.start, raw.end});
      continue;
    }
    const TimeNs learnedFirst = out.nsPerOp[kindIndex(*raw.kinds.first)];
    if (!raw.kinds.second) {
      Interval s = trimmed({raw.start, raw.end}, learnedFirst, named, gap);
      // Opened by a collective, not by its input: the op is the stretch's end.
      if (!raw.openedByTransfer && learnedFirst > 0 && s.end - s.start > learnedFirst + gap) {
        out.other.push_back({s.start, s.end - learnedFirst});
        s.start = s.end - learnedFirst;
      }
      out.ops.push_back({*raw.kinds.first, s.start, s.end});
      continue;
    }
    ++out.splits;
    const TimeNs learnedSecond = out.nsPerOp[kindIndex(*raw.kinds.second)];
    const bool bothLearned = learnedFirst > 0 && learnedSecond > 0;
    const Interval s =
        trimmed({raw.start, raw.end}, bothLearned ? learnedFirst + learnedSecond : 0, named, gap);
    const TimeNs length = s.end - s.start;
    TimeNs at;  // where the first op ends
    if (learnedFirst > 0 && learnedFirst < length) {
      at = s.start + learnedFirst;
    } else if (learnedSecond > 0 && learnedSecond < length) {
      at = s.end - learnedSecond;
    } else {
      ++out.splitsGuessed;
      const TimeNs f = fallback[kindIndex(*raw.kinds.first)];
      const TimeNs b = fallback[kindIndex(*raw.kinds.second)];
      at = f > 0 && b > 0
               ? s.start + static_cast<TimeNs>(static_cast<double>(length) *
                                               static_cast<double>(f) / static_cast<double>(f + b))
               : s.start + length / 2;
    }
    // Host work between the two ops: a named range inside that accounts for what the stretch
    // holds beyond its two ops (known only where both were learned here) is where it splits.
    TimeNs firstEnd = at, secondStart = at;
    if (bothLearned) {
      const TimeNs excess = length - learnedFirst - learnedSecond;
      const TimeNs tolerance = std::max(gap, (learnedFirst + learnedSecond) / 10);
      TimeNs nearest = INT64_MAX;
      auto [first, last] = named.beginningIn(s.start + 1, s.end - 1);
      for (const Interval* r = first; r != last; ++r) {
        if (r->end >= s.end || std::abs(r->end - r->start - excess) > tolerance) continue;
        const TimeNs d = std::max<TimeNs>({r->start - at, at - r->end, 0});
        if (d < nearest) {
          nearest = d;
          firstEnd = r->start;
          secondStart = r->end;
        }
      }
    }
    out.ops.push_back({*raw.kinds.first, s.start, firstEnd});
    out.ops.push_back({*raw.kinds.second, secondStart, s.end});
  }
  return out;
}

}  // namespace bubblescope::analysis
