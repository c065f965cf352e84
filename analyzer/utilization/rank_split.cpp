#include "analyzer/utilization/rank_split.h"

#include <algorithm>
#include <array>

#include "analyzer/timeline/intervals.h"

namespace bubblescope::analysis {
namespace {

// Index of the marker holding t, -1 if none; one step (0) when there are no markers.
int stepOf(const std::vector<Interval>& markers, TimeNs t) {
  if (markers.empty()) return 0;
  auto it = std::upper_bound(markers.begin(), markers.end(), t,
                             [](TimeNs v, const Interval& m) { return v < m.start; });
  if (it == markers.begin()) return -1;
  --it;
  return t <= it->end ? static_cast<int>(it - markers.begin()) : -1;
}

template <class Span>
void collect(const std::vector<Span>& spans, const std::vector<Interval>& markers,
             std::vector<Interval>& reach) {
  for (const Span& s : spans) {
    const int k = stepOf(markers, s.launch != INT64_MIN ? s.launch : s.start);
    if (k < 0) continue;
    Interval& r = reach[static_cast<size_t>(k)];
    r.start = std::min(r.start, s.start);
    r.end = std::max(r.end, s.end);
  }
}

// The parts of [lo, hi] that no layer covers, in time order. The layers are sorted, merged and
// disjoint from one another, so walking them together by start finds the gaps between them.
template <class OnGap>
void unclaimed(const std::array<const IntervalList*, 4>& layers, TimeNs lo, TimeNs hi,
               OnGap onGap) {
  if (hi <= lo) return;
  std::array<size_t, 4> next{};
  for (size_t k = 0; k < layers.size(); ++k) {
    const IntervalList& l = *layers[k];
    next[k] = static_cast<size_t>(
        std::lower_bound(l.begin(), l.end(), lo,
                         [](const Interval& i, TimeNs t) { return i.end <= t; }) -
        l.begin());
  }
  TimeNs covered = lo;  // [lo, covered) is accounted for
  while (covered < hi) {
    const Interval* first = nullptr;
    size_t from = 0;
    for (size_t k = 0; k < layers.size(); ++k) {
      const IntervalList& l = *layers[k];
      if (next[k] < l.size() && l[next[k]].start < hi &&
          (!first || l[next[k]].start < first->start)) {
        first = &l[next[k]];
        from = k;
      }
    }
    if (!first) break;
    ++next[from];
    if (first->start > covered) onGap(covered, first->start);
    covered = std::max(covered, first->end);
  }
  if (covered < hi) onGap(covered, hi);
}

}  // namespace

UtilizationSplit& UtilizationSplit::operator+=(const UtilizationSplit& o) {
  span += o.span;
  compute += o.compute;
  exposedComm += o.exposedComm;
  commWait += o.commWait;
  waitMembers.widen(o.waitMembers);
  otherBusy += o.otherBusy;
  idle += o.idle;
  return *this;
}

RankSplit splitRank(const RankDevice& d, const GapSink& onGap) {
  // Each step's device work (by its launch) reaches from its first start to its last end.
  const size_t steps = std::max<size_t>(1, d.stepMarkers.size());
  std::vector<Interval> reach(steps, Interval{INT64_MAX, INT64_MIN});
  collect(d.compute, d.stepMarkers, reach);
  collect(d.copies, d.stepMarkers, reach);
  collect(d.comms, d.stepMarkers, reach);

  // Exclusive layers, in the order that claims time first.
  IntervalList compute, transfer, copies, wait;
  std::vector<const CommSpan*> partial;  // waits of collectives with members not traced
  compute.reserve(d.compute.size());
  for (const DeviceSpan& s : d.compute) compute.push_back({s.start, s.end});
  for (const CopySpan& s : d.copies) copies.push_back({s.start, s.end});
  for (const CommSpan& s : d.comms) {
    const TimeNs split = std::clamp(s.transferStart, s.start, s.end);
    wait.push_back({s.start, split});
    transfer.push_back({split, s.end});
    if (s.members.partial() && split > s.start) partial.push_back(&s);
  }
  compute = unite(std::move(compute));
  // Each layer takes what the layers before it left: taking them away one by one takes their
  // union away, without a list of all the claimed time (as long as the kernels).
  const IntervalList exposed = subtract(unite(std::move(transfer)), compute);
  const IntervalList other = subtract(subtract(unite(std::move(copies)), compute), exposed);
  const IntervalList waiting =
      subtract(subtract(subtract(unite(std::move(wait)), compute), exposed), other);
  const std::array<const IntervalList*, 4> layers = {&compute, &exposed, &other, &waiting};

  RankSplit out;
  TimeNs windowEnd = INT64_MIN;
  for (size_t k = 0; k < steps; ++k) {
    if (reach[k].start > reach[k].end) continue;  // no device work in this step
    // The window starts where the previous step's ended, so idle before a step's first kernel
    // (a data loader, a sync) is that step's and windows never overlap.
    const TimeNs lo = windowEnd == INT64_MIN ? reach[k].start : windowEnd;
    const TimeNs hi = std::max(lo, reach[k].end);
    windowEnd = hi;
    UtilizationStep st;
    st.number = d.stepMarkers.empty() ? 0 : d.stepNumbers[k];
    st.start = lo;
    st.end = hi;
    auto& sp = st.split;
    sp.span = hi - lo;
    sp.compute = coveredLength(compute, lo, hi);
    sp.exposedComm = coveredLength(exposed, lo, hi);
    sp.otherBusy = coveredLength(other, lo, hi);
    sp.commWait = coveredLength(waiting, lo, hi);
    // The step's wait holds a partial collective's when some of that wait is left in it.
    for (const CommSpan* s : partial) {
      const TimeNs from = std::max(lo, s->start), to = std::min(hi, s->transferStart);
      if (from < to && coveredLength(waiting, from, to) > 0) sp.waitMembers.widen(s->members);
    }
    sp.idle = sp.span - sp.compute - sp.exposedComm - sp.otherBusy - sp.commWait;
    if (onGap) {
      unclaimed(layers, lo, hi, [&](TimeNs from, TimeNs to) {
        onGap(StepGap{out.steps.size(), st.number, from, to});
      });
    }
    out.steps.push_back(st);
  }
  // The windows are back to back, so they clip as one.
  if (!out.steps.empty()) {
    out.copiesAlone = clip(other, out.steps.front().start, out.steps.back().end);
  }
  return out;
}

}  // namespace bubblescope::analysis
