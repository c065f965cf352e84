#include "analyzer/infer/stretch_split.h"

#include <algorithm>

namespace bubblescope::analysis {
namespace {

using engine::OpKind;

int64_t median(std::vector<int64_t> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// The ops of each stretch: [first, last) into `ops`, which are grouped by stretch already.
std::vector<std::pair<size_t, size_t>> byStretch(size_t stretches, const std::vector<VOp>& ops) {
  std::vector<std::pair<size_t, size_t>> out(stretches, {0, 0});
  for (size_t i = 0; i < ops.size();) {
    size_t j = i;
    while (j < ops.size() && ops[j].stretch == ops[i].stretch) ++j;
    if (static_cast<size_t>(ops[i].stretch) < stretches) out[ops[i].stretch] = {i, j};
    i = j;
  }
  return out;
}

}  // namespace

int typeOf(OpKind kind, int chunk) {
  const int k = kind == OpKind::F ? 0 : kind == OpKind::W ? 2 : 1;
  return k * 2 + std::clamp(chunk, 0, 1);
}

OpCosts learnCosts(const std::vector<StretchSpan>& spans, const std::vector<VOp>& ops) {
  const auto groups = byStretch(spans.size(), ops);
  OpCosts costs{};
  std::array<std::vector<int64_t>, 6> seen;
  for (size_t g = 0; g < spans.size(); ++g) {
    const auto [first, last] = groups[g];
    if (last - first == 1 && spans[g].openedByTransfer)
      seen[typeOf(ops[first].kind, ops[first].chunk)].push_back(spans[g].end - spans[g].begin);
  }
  for (int t = 0; t < 6; ++t) costs[t] = median(seen[t]);
  // Ops never alone: what a stretch holds beyond the ops already learned.
  std::array<std::vector<int64_t>, 6> rest;
  for (size_t g = 0; g < spans.size(); ++g) {
    const auto [first, last] = groups[g];
    if (last - first < 2 || !spans[g].openedByTransfer) continue;
    int unknown = -1, unknowns = 0;
    int64_t known = 0;
    for (size_t i = first; i < last; ++i) {
      const int t = typeOf(ops[i].kind, ops[i].chunk);
      if (costs[t] > 0) {
        known += costs[t];
      } else if (unknown != t) {
        unknown = t;
        ++unknowns;
      }
    }
    const int64_t left = spans[g].end - spans[g].begin - known;
    if (unknowns != 1 || left <= 0) continue;
    int copies = 0;
    for (size_t i = first; i < last; ++i) copies += typeOf(ops[i].kind, ops[i].chunk) == unknown;
    rest[unknown].push_back(left / copies);
  }
  for (int t = 0; t < 6; ++t) {
    if (costs[t] == 0) costs[t] = median(rest[t]);
  }
  return costs;
}

std::vector<SplitOp> splitStretches(const std::vector<StretchSpan>& spans,
                                    const std::vector<VOp>& ops, const OpCosts& costs,
                                    int64_t slack) {
  const auto groups = byStretch(spans.size(), ops);
  std::vector<SplitOp> out;
  for (size_t g = 0; g < spans.size(); ++g) {
    const auto [first, last] = groups[g];
    if (first == last) continue;
    // Unknown costs share what the known ones leave, or the stretch evenly.
    int64_t known = 0, fallback = 0;
    int unknown = 0;
    for (size_t i = first; i < last; ++i) {
      const int64_t c = costs[typeOf(ops[i].kind, ops[i].chunk)];
      known += c;
      unknown += c == 0;
      fallback = std::max(fallback, c);
    }
    int64_t begin = spans[g].begin;
    const int64_t end = spans[g].end;
    const int64_t need = known + unknown * fallback;
    if (!spans[g].openedByTransfer && unknown == 0 && end - begin > need + slack)
      begin = end - need;
    const int64_t length = end - begin;
    std::vector<long double> weight;
    long double total = 0;
    for (size_t i = first; i < last; ++i) {
      int64_t c = costs[typeOf(ops[i].kind, ops[i].chunk)];
      if (c == 0) c = fallback > 0 ? fallback : 1;
      weight.push_back(static_cast<long double>(c));
      total += weight.back();
    }
    long double cumulative = 0;
    int64_t at = begin;
    for (size_t i = first; i < last; ++i) {
      cumulative += weight[i - first];
      const int64_t next =
          i + 1 == last ? end
                        : begin + static_cast<int64_t>(
                                      static_cast<long double>(length) * cumulative / total + 0.5L);
      // Each op keeps at least one unit where the stretch has as many (a launch each).
      const int64_t lo = at + 1, hi = end - static_cast<int64_t>(last - i - 1);
      const int64_t cut = lo <= hi ? std::clamp(next, lo, hi) : std::clamp(next, at, end);
      out.push_back({ops[i], at, cut});
      at = out.back().end;
    }
  }
  return out;
}

}  // namespace bubblescope::analysis
