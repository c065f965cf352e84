#include "analyzer/timeline/intervals.h"

#include <algorithm>

namespace bubblescope::analysis {

void uniteInPlace(IntervalList& v) {
  std::sort(v.begin(), v.end(),
            [](const Interval& a, const Interval& b) { return a.start < b.start; });
  // Merged in place: a second list beside the first, grown by doubling, was up to three times
  // the list at once (a rank's millions of kernels).
  size_t n = 0;
  for (size_t k = 0; k < v.size(); ++k) {
    const Interval i = v[k];
    if (i.end <= i.start) continue;
    if (n > 0 && i.start <= v[n - 1].end) {
      v[n - 1].end = std::max(v[n - 1].end, i.end);
    } else {
      v[n++] = i;
    }
  }
  v.resize(n);
  if (v.capacity() > 2 * n + 1024) v.shrink_to_fit();
}

IntervalList unite(IntervalList v) {
  uniteInPlace(v);
  return v;
}

void subtractInto(const IntervalList& a, const IntervalList& b, IntervalList& out) {
  out.clear();
  size_t j = 0;
  for (Interval cur : a) {
    while (j < b.size() && b[j].end <= cur.start) ++j;
    size_t k = j;
    while (k < b.size() && b[k].start < cur.end) {
      if (b[k].start > cur.start) out.push_back({cur.start, b[k].start});
      cur.start = std::max(cur.start, b[k].end);
      if (cur.start >= cur.end) break;
      ++k;
    }
    if (cur.start < cur.end) out.push_back(cur);
  }
}

IntervalList subtract(const IntervalList& a, const IntervalList& b) {
  IntervalList out;
  subtractInto(a, b, out);
  return out;
}

void clipInPlace(IntervalList& v, TimeNs lo, TimeNs hi) {
  size_t n = 0;
  for (const Interval& i : v) {
    const TimeNs s = std::max(i.start, lo), e = std::min(i.end, hi);
    if (s < e) v[n++] = {s, e};
  }
  v.resize(n);
}

IntervalList clip(const IntervalList& a, TimeNs lo, TimeNs hi) {
  IntervalList out;
  for (const Interval& i : a) {
    const TimeNs s = std::max(i.start, lo), e = std::min(i.end, hi);
    if (s < e) out.push_back({s, e});
  }
  return out;
}

TimeNs totalLength(const IntervalList& a) {
  TimeNs n = 0;
  for (const Interval& i : a) n += i.end - i.start;
  return n;
}

TimeNs coveredLength(const IntervalList& a, TimeNs lo, TimeNs hi) {
  if (hi <= lo) return 0;
  auto it = std::lower_bound(a.begin(), a.end(), lo,
                             [](const Interval& i, TimeNs t) { return i.end <= t; });
  TimeNs n = 0;
  for (; it != a.end() && it->start < hi; ++it)
    n += std::min(it->end, hi) - std::max(it->start, lo);
  return n;
}

}  // namespace bubblescope::analysis
