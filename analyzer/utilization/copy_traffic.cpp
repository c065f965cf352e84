#include "analyzer/utilization/copy_traffic.h"

#include <algorithm>
#include <map>
#include <string>

#include "analyzer/timeline/intervals.h"

namespace bubblescope::analysis {
namespace {

void sortByTimeAlone(std::vector<CopyTraffic>& v) {
  std::stable_sort(v.begin(), v.end(), [](const CopyTraffic& a, const CopyTraffic& b) {
    return a.alone != b.alone ? a.alone > b.alone : a.bytes > b.bytes;
  });
}

}  // namespace

const char* copyDirection(traces::MemcpyKind kind) {
  return traces::memcpyDirection(kind, "unknown");
}

std::vector<CopyTraffic> copyTraffic(const std::vector<CopySpan>& copies,
                                     const std::vector<Interval>& copiesAlone, TimeNs lo,
                                     TimeNs hi) {
  std::map<std::string, std::pair<IntervalList, CopyTraffic>> by;
  for (const CopySpan& c : copies) {
    if (c.start < lo || c.start > hi) continue;  // outside every step's window
    auto& [spans, t] = by[c.direction];
    spans.push_back({c.start, c.end});
    t.direction = c.direction;
    t.bytes += c.bytes;
    ++t.count;
  }
  std::vector<CopyTraffic> out;
  for (auto& [direction, entry] : by) {
    auto& [spans, t] = entry;
    // Both are unions: the time of `copiesAlone` under each of this direction's spans adds up
    // to the time it alone had the device, counted once where its own copies overlap.
    for (const Interval& s : unite(std::move(spans))) {
      t.alone += coveredLength(copiesAlone, s.start, s.end);
    }
    out.push_back(std::move(t));
  }
  sortByTimeAlone(out);
  return out;
}

void addCopyTraffic(std::vector<CopyTraffic>& total, const std::vector<CopyTraffic>& more) {
  for (const CopyTraffic& m : more) {
    auto it = std::find_if(total.begin(), total.end(),
                           [&](const CopyTraffic& t) { return t.direction == m.direction; });
    if (it == total.end()) {
      total.push_back(m);
      continue;
    }
    it->alone += m.alone;
    it->bytes += m.bytes;
    it->count += m.count;
  }
  sortByTimeAlone(total);
}

}  // namespace bubblescope::analysis
