#include "analyzer/infer/host_segments.h"

#include <algorithm>

namespace bubblescope::analysis {
namespace {

using engine::OpKind;

struct Stretch {
  TimeNs start = 0, end = 0;  // trimmed of named ranges at either end
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

// [start, end) less the named ranges that cover its beginning or its end (within `gap`).
Interval trimmed(TimeNs start, TimeNs end, const std::vector<Interval>& named, TimeNs gap) {
  for (bool moved = true; moved && start < end;) {
    moved = false;
    for (const Interval& r : named) {
      if (r.start <= start + gap && r.end > start && r.start < end) {
        start = r.end;
        moved = true;
      }
      if (r.end + gap >= end && r.start < end && r.end > start) {
        end = r.start;
        moved = true;
      }
    }
  }
  return {start, end};
}

}  // namespace

HostSegmentation segmentHostTime(std::vector<HostCall> calls, std::vector<Interval> named,
                                 std::array<TimeNs, 2> fallback, TimeNs gap) {
  HostSegmentation out;
  std::sort(calls.begin(), calls.end(),
            [](const HostCall& a, const HostCall& b) { return a.start < b.start; });
  std::sort(named.begin(), named.end(),
            [](const Interval& a, const Interval& b) { return a.start < b.start; });
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
    const Interval t = trimmed(groups[i].end, groups[i + 1].start, named, gap);
    if (t.end - t.start < gap) continue;  // host work of its own, nothing of an op
    const CallGroup& opening = groups[i].calls;
    const bool transfer = opening[CutKind::ActIn] || opening[CutKind::ActOut] ||
                          opening[CutKind::GradIn] || opening[CutKind::GradOut];
    stretches.push_back({t.start, t.end, kindsBetween(&opening, &groups[i + 1].calls), transfer});
  }
  out.stretches = static_cast<int>(stretches.size());

  std::vector<TimeNs> durations[2];
  for (const Stretch& s : stretches) {
    if (s.kinds.first && !s.kinds.second)
      durations[kindIndex(*s.kinds.first)].push_back(s.end - s.start);
  }
  for (int k = 0; k < 2; ++k) out.nsPerOp[k] = median(durations[k]);

  for (const Stretch& s : stretches) {
    if (!s.kinds.first) {
      ++out.unclassified;
      out.other.push_back({s.start, s.end});
      continue;
    }
    if (!s.kinds.second) {
      TimeNs start = s.start;
      const TimeNs learned = out.nsPerOp[kindIndex(*s.kinds.first)];
      if (!s.openedByTransfer && learned > 0 && s.end - s.start > learned + gap) {
        start = s.end - learned;
        out.other.push_back({s.start, start});
      }
      out.ops.push_back({*s.kinds.first, start, s.end});
      continue;
    }
    ++out.splits;
    const TimeNs length = s.end - s.start;
    const TimeNs learnedFirst = out.nsPerOp[kindIndex(*s.kinds.first)];
    const TimeNs learnedSecond = out.nsPerOp[kindIndex(*s.kinds.second)];
    TimeNs at;  // where the first op ends
    if (learnedFirst > 0 && learnedFirst < length) {
      at = s.start + learnedFirst;
    } else if (learnedSecond > 0 && learnedSecond < length) {
      at = s.end - learnedSecond;
    } else {
      ++out.splitsGuessed;
      const TimeNs f = fallback[kindIndex(*s.kinds.first)],
                   b = fallback[kindIndex(*s.kinds.second)];
      at = f > 0 && b > 0
               ? s.start + static_cast<TimeNs>(static_cast<double>(length) *
                                               static_cast<double>(f) / static_cast<double>(f + b))
               : s.start + length / 2;
    }
    // A named range inside the stretch is host work between the two ops: split there, at the
    // one nearest the estimate.
    TimeNs firstEnd = at, secondStart = at;
    TimeNs nearest = INT64_MAX;
    for (const Interval& r : named) {
      if (r.start <= s.start || r.end >= s.end) continue;
      const TimeNs d = std::max(r.start - at, at - r.end);
      if (std::max<TimeNs>(d, 0) < nearest) {
        nearest = std::max<TimeNs>(d, 0);
        firstEnd = r.start;
        secondStart = r.end;
      }
    }
    out.ops.push_back({*s.kinds.first, s.start, firstEnd});
    out.ops.push_back({*s.kinds.second, secondStart, s.end});
  }
  return out;
}

}  // namespace bubblescope::analysis
