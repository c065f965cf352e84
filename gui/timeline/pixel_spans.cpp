#include "gui/timeline/pixel_spans.h"

#include <algorithm>

namespace bubblescope::gui {

std::vector<PixelSpan> unionOf(std::vector<PixelSpan> spans) {
  std::sort(spans.begin(), spans.end(),
            [](const PixelSpan& a, const PixelSpan& b) { return a.x0 < b.x0; });
  std::vector<PixelSpan> out;
  for (const PixelSpan& s : spans) {
    if (s.x1 <= s.x0) continue;
    if (!out.empty() && s.x0 <= out.back().x1) {
      out.back().x1 = std::max(out.back().x1, s.x1);
    } else {
      out.push_back(s);
    }
  }
  return out;
}

std::vector<PixelSpan> intersectionOf(const std::vector<std::vector<PixelSpan>>& unions) {
  if (unions.empty()) return {};
  std::vector<PixelSpan> acc = unions.front();
  for (size_t k = 1; k < unions.size(); ++k) {
    const auto& other = unions[k];
    std::vector<PixelSpan> next;
    size_t i = 0, j = 0;
    while (i < acc.size() && j < other.size()) {
      const double lo = std::max(acc[i].x0, other[j].x0);
      const double hi = std::min(acc[i].x1, other[j].x1);
      if (lo < hi) next.push_back({lo, hi});
      // Whichever ends first can meet nothing further on.
      if (acc[i].x1 < other[j].x1) {
        ++i;
      } else {
        ++j;
      }
    }
    acc = std::move(next);
  }
  return acc;
}

std::vector<PixelSpan> uncovered(PixelSpan span, const std::vector<PixelSpan>& cover,
                                 double minPx) {
  std::vector<PixelSpan> out;
  auto keep = [&](double a, double b) {
    if (b - a >= minPx) out.push_back({a, b});
  };
  // The first cover span that ends after the span starts.
  auto it = std::lower_bound(cover.begin(), cover.end(), span.x0,
                             [](const PixelSpan& c, double x) { return c.x1 <= x; });
  double x = span.x0;
  for (; it != cover.end() && it->x0 < span.x1; ++it) {
    keep(x, std::min(it->x0, span.x1));
    x = std::max(x, it->x1);
    if (x >= span.x1) return out;
  }
  keep(x, span.x1);
  return out;
}

}  // namespace bubblescope::gui
