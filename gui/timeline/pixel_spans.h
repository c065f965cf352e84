#pragma once
// Horizontal pixel spans: which parts of a row its boxes already cover. On a software rasteriser
// (Mesa's llvmpipe, what users get over X forwarding and in CI) every primitive and every pixel
// painted twice costs, so idle shading and row backdrops are drawn only where the op boxes leave
// the row uncovered.
#include <vector>

namespace bubblescope::gui {

struct PixelSpan {
  double x0 = 0, x1 = 0;
  bool operator==(const PixelSpan&) const = default;
};

// The union of `spans` (any order), as disjoint spans sorted by x0.
std::vector<PixelSpan> unionOf(std::vector<PixelSpan> spans);

// The intersection of several unions (each sorted and disjoint, as unionOf returns): the pixels
// every one of them covers. Empty input: nothing is covered.
std::vector<PixelSpan> intersectionOf(const std::vector<std::vector<PixelSpan>>& unions);

// The parts of `span` outside `cover` (sorted and disjoint), narrower pieces than `minPx` left
// out: a sliver under a pixel wide lights no pixel of its own.
std::vector<PixelSpan> uncovered(PixelSpan span, const std::vector<PixelSpan>& cover, double minPx);

}  // namespace bubblescope::gui
