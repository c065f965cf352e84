// Level-of-detail folding and lane packing: tables of small cases, and a property check over
// random lanes (every visible interval in exactly one box, boxes apart, the count bounded by
// pixels rather than events).
#include "gui/timeline/lod.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace bubblescope::gui {
namespace {

Track lane(std::initializer_list<std::pair<TimeNs, TimeNs>> spans) {
  Track t;
  uint32_t i = 0;
  for (auto [s, e] : spans) t.push(s, e, i++);
  return t;
}

struct Box {
  size_t first, last;
  bool operator==(const Box&) const = default;
};

struct FoldCase {
  const char* name;
  Track track;
  TimeMapping m;  // 1 ns per pixel over [0, 100) unless stated
  std::vector<Box> boxes;
};

std::vector<Box> fold(const Track& t, const TimeMapping& m) {
  std::vector<LodBox> out;
  foldVisible(t, m, kMinBoxPx, out);
  std::vector<Box> boxes;
  for (const auto& b : out) boxes.push_back({b.first, b.last});
  return boxes;
}

TEST(Lod, FoldsRunsOfNarrowIntervalsAndKeepsWideOnesApart) {
  const TimeMapping px{0, 100, 0, 100};
  const FoldCase cases[] = {
      {"empty lane", {}, px, {}},
      {"wide intervals one by one",
       lane({{0, 10}, {10, 20}, {30, 40}}),
       px,
       {{0, 1}, {1, 2}, {2, 3}}},
      {"three narrow ones close together fold", lane({{10, 11}, {12, 13}, {14, 15}}), px, {{0, 3}}},
      {"a gap of 3 px or more starts a new run",
       lane({{10, 11}, {12, 13}, {16, 17}}),
       px,
       {{0, 2}, {2, 3}}},
      {"a wide interval ends a run", lane({{10, 11}, {12, 13}, {13, 30}}), px, {{0, 2}, {2, 3}}},
      {"a lone narrow interval is its own box", lane({{10, 11}, {50, 60}}), px, {{0, 1}, {1, 2}}},
      {"only what reaches into the view",
       lane({{-50, -40}, {-5, 5}, {50, 60}, {100, 110}}),
       px,
       {{1, 2}, {2, 3}}},
      {"zoomed out, everything folds",
       lane({{0, 10}, {10, 20}, {20, 30}, {40, 50}}),
       TimeMapping{0, 1000, 0, 100},
       {{0, 4}}},
      {"zoomed in, the same lane spreads out",
       lane({{0, 10}, {10, 20}, {20, 30}, {40, 50}}),
       TimeMapping{0, 50, 0, 500},
       {{0, 1}, {1, 2}, {2, 3}, {3, 4}}},
  };
  for (const auto& c : cases) EXPECT_EQ(fold(c.track, c.m), c.boxes) << c.name;
}

TEST(Lod, FoldedBoxSpansItsIntervals) {
  std::vector<LodBox> out;
  foldVisible(lane({{10, 11}, {12, 13}, {14, 15}}), TimeMapping{0, 100, 0, 100}, kMinBoxPx, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].start, 10);
  EXPECT_EQ(out[0].end, 15);
  EXPECT_EQ(out[0].count(), 3u);
  EXPECT_TRUE(out[0].folded());
}

TEST(Lod, RandomLanesFoldIntoDisjointBoxesBoundedByPixels) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    Track t;
    TimeNs at = 0;
    const int n = 1 + static_cast<int>(rng() % 3000);
    for (int i = 0; i < n; ++i) {
      at += static_cast<TimeNs>(rng() % 50);
      const TimeNs len = static_cast<TimeNs>(rng() % (trial % 3 == 0 ? 5000 : 40));
      t.push(at, at + len, static_cast<uint32_t>(i));
      at += len;
    }
    const TimeNs a = static_cast<TimeNs>(rng() % static_cast<uint64_t>(at + 1));
    const TimeNs span = 1 + static_cast<TimeNs>(rng() % static_cast<uint64_t>(at + 1));
    const double width = 50 + static_cast<double>(rng() % 2000);
    const TimeMapping m{a, a + span, 0, width};
    std::vector<LodBox> out;
    foldVisible(t, m, kMinBoxPx, out);
    const auto [first, last] = t.visible(m.start, m.end);
    // Every visible interval is in exactly one box, in order.
    size_t next = first;
    for (const LodBox& b : out) {
      ASSERT_EQ(b.first, next) << "trial " << trial;
      ASSERT_GT(b.last, b.first);
      next = b.last;
      EXPECT_EQ(b.start, t.start[b.first]);
      EXPECT_GE(b.end, t.end[b.last - 1]);
      if (b.folded()) {
        // Only narrow intervals fold.
        for (size_t i = b.first; i < b.last; ++i) {
          EXPECT_LT(static_cast<double>(t.end[i] - t.start[i]) * m.pxPerNs(), kMinBoxPx + 1e-9);
        }
      }
    }
    EXPECT_EQ(next, last) << "trial " << trial;
    // Boxes are at least 3 px wide or at least 3 px apart from the next narrow box: their number
    // is bounded by the pixels, whatever the number of events.
    EXPECT_LE(static_cast<double>(out.size()), 2 * width / kMinBoxPx + 4) << "trial " << trial;
  }
}

TEST(Lod, MillionEventsFoldToAFewHundredBoxes) {
  Track t;
  for (TimeNs i = 0; i < 1'000'000; ++i) t.push(i * 100, i * 100 + 80, static_cast<uint32_t>(i));
  std::vector<LodBox> out;
  foldVisible(t, TimeMapping{0, 100'000'000, 0, 1600}, kMinBoxPx, out);
  EXPECT_EQ(out.size(), 1u);  // one continuous run of 1 M slivers
  EXPECT_EQ(out[0].count(), 1'000'000u);
}

struct PackCase {
  const char* name;
  std::vector<Span> spans;
  std::vector<size_t> laneSizes;
};

TEST(Track, PacksOverlapsIntoTheFewestLanes) {
  const PackCase cases[] = {
      {"disjoint: one lane", {{0, 10, 0}, {10, 20, 1}, {30, 40, 2}}, {3}},
      {"nested: two lanes", {{0, 100, 0}, {10, 20, 1}, {30, 40, 2}}, {1, 2}},
      {"three at once", {{0, 10, 0}, {1, 10, 1}, {2, 10, 2}, {10, 12, 3}}, {2, 1, 1}},
      {"unsorted input", {{30, 40, 2}, {0, 10, 0}, {5, 15, 1}}, {2, 1}},
      {"empty", {}, {}},
  };
  for (const auto& c : cases) {
    const auto lanes = packLanes(c.spans);
    std::vector<size_t> sizes;
    for (const auto& l : lanes) {
      sizes.push_back(l.size());
      for (size_t i = 1; i < l.size(); ++i) EXPECT_LE(l.end[i - 1], l.start[i]) << c.name;
    }
    EXPECT_EQ(sizes, c.laneSizes) << c.name;
  }
}

TEST(Track, VisibleWindowIsTwoBinarySearches) {
  const Track t = lane({{0, 10}, {10, 20}, {30, 40}, {50, 60}});
  EXPECT_EQ(t.visible(15, 35), (std::pair<size_t, size_t>{1, 3}));
  EXPECT_EQ(t.visible(20, 30), (std::pair<size_t, size_t>{2, 2}));  // the gap: nothing
  EXPECT_EQ(t.visible(-10, 100), (std::pair<size_t, size_t>{0, 4}));
  EXPECT_EQ(t.visible(60, 100), (std::pair<size_t, size_t>{4, 4}));
}

}  // namespace
}  // namespace bubblescope::gui
