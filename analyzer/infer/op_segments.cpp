#include "analyzer/infer/op_segments.h"

#include <algorithm>
#include <optional>

namespace bubblescope::analysis {
namespace {

using engine::OpKind;

using Group = CallGroup;

struct Stretch {
  size_t begin = 0, end = 0;
  std::optional<OpKind> first, second;
};

Stretch classify(size_t begin, size_t end, const Group* prev, const Group* next) {
  const RunKinds k = kindsBetween(prev, next);
  return {begin, end, k.first, k.second};
}

size_t median(std::vector<size_t> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

int kindIndex(OpKind k) {
  return k == OpKind::F ? 0 : 1;
}

}  // namespace

RunKinds kindsBetween(const CallGroup* prev, const CallGroup* next) {
  RunKinds s;
  std::optional<OpKind> opened, closed;
  if (prev && (*prev)[CutKind::ActIn])
    opened = OpKind::F;
  else if (prev && (*prev)[CutKind::GradIn])
    opened = OpKind::BW;
  if (next && (*next)[CutKind::ActOut])
    closed = OpKind::F;
  else if (next && (*next)[CutKind::GradOut])
    closed = OpKind::BW;
  if (opened && closed && *opened != *closed) {
    s.first = opened;
    s.second = closed;
  } else {
    s.first = opened ? opened : closed;
  }
  return s;
}

Segmentation segmentOps(const std::vector<TimeNs>& launches, std::vector<Cut> cuts,
                        std::array<size_t, 2> fallback) {
  std::sort(cuts.begin(), cuts.end(), [](const Cut& a, const Cut& b) { return a.at < b.at; });
  // Runs of launches between groups of calls.
  std::vector<Stretch> stretches;
  Group prev, next;
  bool havePrev = false;
  size_t c = 0, i = 0;
  while (i < launches.size()) {
    // The calls before launch i (since the previous run) form the group that opens this run.
    Group opening;
    bool any = false;
    while (c < cuts.size() && cuts[c].at <= launches[i]) {
      opening.has[static_cast<int>(cuts[c++].kind)] = true;
      any = true;
    }
    if (any) {
      prev = opening;
      havePrev = true;
    }
    const size_t begin = i;
    const TimeNs limit = c < cuts.size() ? cuts[c].at : INT64_MAX;
    while (i < launches.size() && launches[i] < limit) ++i;
    next = Group{};
    bool haveNext = false;
    for (size_t k = c; k < cuts.size() && (i >= launches.size() || cuts[k].at <= launches[i]);
         ++k) {
      next.has[static_cast<int>(cuts[k].kind)] = true;
      haveNext = true;
    }
    stretches.push_back(classify(begin, i, havePrev ? &prev : nullptr, haveNext ? &next : nullptr));
    havePrev = false;
  }

  Segmentation out;
  out.stretches = static_cast<int>(stretches.size());
  std::vector<size_t> counts[2];
  for (const Stretch& s : stretches) {
    if (s.first && !s.second) counts[kindIndex(*s.first)].push_back(s.end - s.begin);
  }
  for (int k = 0; k < 2; ++k) out.kernelsPerOp[k] = median(counts[k]);
  for (const Stretch& s : stretches) {
    if (!s.first) {
      ++out.unclassified;
      continue;
    }
    if (!s.second) {
      out.ops.push_back({*s.first, s.begin, s.end, 0, -1});
      continue;
    }
    ++out.splits;
    const size_t n = s.end - s.begin;
    const size_t learnedFirst = out.kernelsPerOp[kindIndex(*s.first)];
    const size_t learnedSecond = out.kernelsPerOp[kindIndex(*s.second)];
    size_t first = 0;
    if (learnedFirst > 0 && learnedFirst < n) {
      first = learnedFirst;
    } else if (learnedSecond > 0 && learnedSecond < n) {
      first = n - learnedSecond;
    } else {
      ++out.splitsGuessed;
      const size_t f = fallback[kindIndex(*s.first)], b = fallback[kindIndex(*s.second)];
      first = f > 0 && f < n ? f : b > 0 && b < n ? n - b : n / 2;
    }
    first = std::clamp<size_t>(first, 1, n > 1 ? n - 1 : 1);
    out.ops.push_back({*s.first, s.begin, s.begin + first, 0, -1});
    if (s.begin + first < s.end) out.ops.push_back({*s.second, s.begin + first, s.end, 0, -1});
  }
  return out;
}

}  // namespace bubblescope::analysis
