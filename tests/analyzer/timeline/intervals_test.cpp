// Interval arithmetic on sorted, disjoint lists: the busy/idle split adds up only if union,
// difference, clipping and covered length are exact at every edge (touching, empty, outside).
#include "analyzer/timeline/intervals.h"

#include <gtest/gtest.h>

#include <random>

namespace bubblescope::analysis {
namespace {

struct UniteCase {
  const char* what;
  IntervalList in, out;
};

TEST(Unite, SortsMergesAndDropsEmptyIntervals) {
  const UniteCase cases[] = {
      {"nothing", {}, {}},
      {"disjoint stay apart", {{3, 4}, {1, 2}}, {{1, 2}, {3, 4}}},
      {"overlapping, unsorted", {{5, 8}, {1, 3}, {2, 6}}, {{1, 8}}},
      {"touching merge", {{1, 3}, {3, 5}}, {{1, 5}}},
      {"contained", {{1, 10}, {2, 3}}, {{1, 10}}},
      {"empty and inverted dropped", {{4, 4}, {6, 5}, {7, 9}}, {{7, 9}}},
  };
  for (const auto& c : cases) EXPECT_EQ(unite(c.in), c.out) << c.what;
}

struct SubtractCase {
  const char* what;
  IntervalList a, b, out;
};

TEST(Subtract, KeepsThePartsOfANotCoveredByB) {
  const SubtractCase cases[] = {
      {"nothing to take away", {{0, 10}}, {}, {{0, 10}}},
      {"holes in the middle", {{0, 10}}, {{2, 4}, {6, 8}}, {{0, 2}, {4, 6}, {8, 10}}},
      {"covered entirely", {{0, 10}}, {{-5, 15}}, {}},
      {"covered exactly", {{0, 10}}, {{0, 10}}, {}},
      {"both edges", {{0, 10}}, {{0, 3}, {7, 10}}, {{3, 7}}},
      {"touching outside", {{0, 10}}, {{-2, 0}, {10, 12}}, {{0, 10}}},
      {"one b across two a", {{0, 4}, {6, 10}}, {{3, 7}}, {{0, 3}, {7, 10}}},
      {"one b across three a", {{0, 2}, {3, 5}, {6, 8}}, {{1, 7}}, {{0, 1}, {7, 8}}},
      {"b between a", {{0, 2}, {6, 8}}, {{3, 5}}, {{0, 2}, {6, 8}}},
      {"nothing from nothing", {}, {{0, 5}}, {}},
  };
  for (const auto& c : cases) EXPECT_EQ(subtract(c.a, c.b), c.out) << c.what;
}

struct ClipCase {
  const char* what;
  TimeNs lo, hi;
  IntervalList out;
};

TEST(Clip, KeepsThePartsInsideTheWindow) {
  const IntervalList a = {{0, 4}, {6, 10}};
  const ClipCase cases[] = {
      {"cuts both intervals", 2, 8, {{2, 4}, {6, 8}}},
      {"window in the gap, touching both", 4, 6, {}},
      {"window wider than everything", -10, 20, {{0, 4}, {6, 10}}},
      {"empty window", 3, 3, {}},
      {"window inside one interval", 7, 9, {{7, 9}}},
  };
  for (const auto& c : cases) EXPECT_EQ(clip(a, c.lo, c.hi), c.out) << c.what;
}

TEST(TotalLength, AddsTheLengths) {
  EXPECT_EQ(totalLength({}), 0);
  EXPECT_EQ(totalLength({{0, 4}, {6, 10}}), 8);
}

struct CoveredCase {
  const char* what;
  TimeNs lo, hi, covered;
};

TEST(CoveredLength, CountsOnlyThePartInsideTheWindow) {
  const IntervalList a = {{0, 4}, {6, 10}};
  const CoveredCase cases[] = {
      {"across the gap", 2, 8, 4},         {"exactly the gap", 4, 6, 0},
      {"from an interval's end", 4, 7, 1}, {"everything", -10, 20, 8},
      {"inside one interval", 1, 3, 2},    {"after the last", 10, 30, 0},
      {"before the first", -5, 0, 0},      {"empty window", 3, 3, 0},
      {"inverted window", 8, 2, 0},
  };
  for (const auto& c : cases) EXPECT_EQ(coveredLength(a, c.lo, c.hi), c.covered) << c.what;
  EXPECT_EQ(coveredLength({}, 0, 10), 0);
}

// The split relies on this: idle = window minus busy, and busy + idle = window.
TEST(Intervals, SubtractingTheUnionFromAWindowLeavesExactlyTheRest) {
  const IntervalList busy = unite({{2, 5}, {4, 7}, {9, 12}, {15, 30}});
  const IntervalList idle = subtract({{0, 20}}, busy);
  EXPECT_EQ(idle, (IntervalList{{0, 2}, {7, 9}, {12, 15}}));
  EXPECT_EQ(totalLength(clip(busy, 0, 20)) + totalLength(idle), 20);
  EXPECT_EQ(coveredLength(idle, 0, 20), 7);
}

// The in-place forms (a step's lists, rebuilt every step in the same room, issue 28) give what
// the others give, whatever the list written into held before. Seeded random lists.
TEST(Intervals, InPlaceFormsGiveWhatTheOthersGive) {
  std::mt19937 rng(28);
  std::uniform_int_distribution<TimeNs> at(0, 200), len(-5, 40);
  const auto randomList = [&] {
    IntervalList v(rng() % 12);
    for (Interval& i : v) {
      i.start = at(rng);
      i.end = i.start + len(rng);
    }
    return v;
  };
  IntervalList out = {{1, 2}, {50, 60}, {7, 3}};  // stale content, to be overwritten
  for (int trial = 0; trial < 500; ++trial) {
    const IntervalList raw = randomList();
    IntervalList merged = raw;
    uniteInPlace(merged);
    ASSERT_EQ(merged, unite(raw)) << trial;
    const TimeNs lo = at(rng), hi = lo + len(rng);
    IntervalList cut = merged;
    clipInPlace(cut, lo, hi);
    ASSERT_EQ(cut, clip(merged, lo, hi)) << trial;
    const IntervalList other = unite(randomList());
    subtractInto(merged, other, out);
    ASSERT_EQ(out, subtract(merged, other)) << trial;
  }
}

}  // namespace
}  // namespace bubblescope::analysis
