// Pixel spans: unions, intersections and what a span leaves uncovered, as tables of small cases,
// plus a property check against a pixel-by-pixel model over random spans.
#include "gui/timeline/pixel_spans.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace bubblescope::gui {
namespace {

using Spans = std::vector<PixelSpan>;

TEST(PixelSpans, UnionMergesOverlappingAndTouchingSpans) {
  struct Case {
    const char* name;
    Spans in, out;
  } cases[] = {
      {"nothing", {}, {}},
      {"apart stay apart", {{5, 6}, {1, 2}}, {{1, 2}, {5, 6}}},
      {"overlapping merge", {{1, 4}, {3, 6}}, {{1, 6}}},
      {"touching merge", {{1, 3}, {3, 6}}, {{1, 6}}},
      {"inside vanishes", {{1, 10}, {2, 3}}, {{1, 10}}},
      {"empty spans ignored", {{4, 4}, {6, 5}}, {}},
  };
  for (const Case& c : cases) EXPECT_EQ(unionOf(c.in), c.out) << c.name;
}

TEST(PixelSpans, IntersectionKeepsWhatEveryUnionCovers) {
  struct Case {
    const char* name;
    std::vector<Spans> in;
    Spans out;
  } cases[] = {
      {"no unions: nothing covered", {}, {}},
      {"one union is itself", {{{1, 2}, {4, 5}}}, {{1, 2}, {4, 5}}},
      {"two lanes overlap in part", {{{0, 10}}, {{5, 15}}}, {{5, 10}}},
      {"a lane with nothing covers nothing", {{{0, 10}}, {}}, {}},
      {"many pieces", {{{0, 4}, {6, 10}}, {{2, 8}}}, {{2, 4}, {6, 8}}},
      {"three lanes", {{{0, 10}}, {{1, 9}}, {{2, 3}, {8, 20}}}, {{2, 3}, {8, 9}}},
  };
  for (const Case& c : cases) EXPECT_EQ(intersectionOf(c.in), c.out) << c.name;
}

TEST(PixelSpans, UncoveredPiecesOfASpan) {
  struct Case {
    const char* name;
    PixelSpan span;
    Spans cover, out;
  } cases[] = {
      {"no cover: whole", {0, 10}, {}, {{0, 10}}},
      {"fully covered: nothing", {2, 8}, {{0, 10}}, {}},
      {"cover in the middle splits it", {0, 10}, {{4, 6}}, {{0, 4}, {6, 10}}},
      {"cover at the start", {0, 10}, {{-5, 3}}, {{3, 10}}},
      {"cover at the end", {0, 10}, {{7, 30}}, {{0, 7}}},
      {"covers before and after do not touch it", {5, 10}, {{0, 5}, {10, 12}}, {{5, 10}}},
      {"slivers under a pixel are left out", {0, 10}, {{0.5, 4}, {4.6, 9.8}}, {}},
      {"a pixel-wide slit stays", {0, 10}, {{0, 4}, {5, 10}}, {{4, 5}}},
  };
  for (const Case& c : cases) EXPECT_EQ(uncovered(c.span, c.cover, 1.0), c.out) << c.name;
}

// Against a model that checks every quarter pixel: a point is in the result exactly when it is in
// the span and in no cover span (pieces kept whole, minPx 0).
TEST(PixelSpans, UncoveredMatchesAPointByPointModelOnRandomSpans) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> pos(0, 400);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<Spans> lanes(1 + trial % 3);
    for (auto& l : lanes) {
      Spans raw;
      for (int k = 0; k < 6; ++k) {
        const double a = pos(rng) / 4.0, b = a + pos(rng) / 16.0;
        raw.push_back({a, b});
      }
      l = unionOf(raw);
    }
    const Spans cover = intersectionOf(lanes);
    const double a = pos(rng) / 4.0;
    const PixelSpan span{a, a + pos(rng) / 8.0};
    const Spans out = uncovered(span, cover, 0);
    for (double x = 0.125; x < 110; x += 0.25) {
      bool inAll = true;
      for (const auto& l : lanes) {
        bool in = false;
        for (const auto& s : l) in = in || (x >= s.x0 && x < s.x1);
        inAll = inAll && in;
      }
      const bool expected = x >= span.x0 && x < span.x1 && !inAll;
      bool got = false;
      for (const auto& s : out) got = got || (x >= s.x0 && x < s.x1);
      ASSERT_EQ(got, expected) << "trial " << trial << " x " << x;
    }
    for (size_t k = 1; k < out.size(); ++k) EXPECT_LE(out[k - 1].x1, out[k].x0);
  }
}

}  // namespace
}  // namespace bubblescope::gui
