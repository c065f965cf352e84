// The in-memory model: interning and column sorting.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "traces/model/sort.h"
#include "traces/model/string_table.h"
#include "traces/model/trace.h"

namespace bubblescope::traces {
namespace {

TEST(StringTable, IdZeroIsTheEmptyString) {
  StringTable t;
  EXPECT_EQ(t.intern(""), 0u);
  EXPECT_EQ(t.at(0), "");
}

TEST(StringTable, InterningTwiceGivesOneId) {
  StringTable t;
  const StringId a = t.intern("F mb=1");
  const StringId b = t.intern("B mb=1");
  EXPECT_NE(a, b);
  EXPECT_EQ(t.intern(std::string("F mb=") + "1"), a);
  EXPECT_EQ(t.at(a), "F mb=1");
  EXPECT_EQ(t.size(), 3u);
}

TEST(StringTable, IdsStayValidAsTheTableGrows) {
  StringTable t;
  const StringId first = t.intern("first");
  for (int i = 0; i < 10000; ++i) t.intern("s" + std::to_string(i));
  EXPECT_EQ(t.at(first), "first");
  StringId found = 0;
  ASSERT_TRUE(t.find("s9999", &found));
  EXPECT_EQ(t.at(found), "s9999");
  EXPECT_FALSE(t.find("absent", &found));
}

TEST(StringTable, ViewsStayValidAndNulTerminatedAsTheTableGrows) {
  StringTable t;
  const std::string_view first = t.at(t.intern("first"));
  const std::string longer(100'000, 'x');  // longer than any block
  const StringId big = t.intern(longer);
  std::vector<StringId> ids;
  for (int i = 0; i < 100'000; ++i) ids.push_back(t.intern("step " + std::to_string(i)));
  EXPECT_EQ(first, "first");
  EXPECT_EQ(first.data()[first.size()], '\0');
  EXPECT_EQ(t.at(big), longer);
  for (int i = 0; i < 100'000; i += 997) {
    const std::string_view s = t.at(ids[i]);
    EXPECT_EQ(s, "step " + std::to_string(i));
    EXPECT_EQ(std::strlen(s.data()), s.size());
    EXPECT_EQ(t.intern(s), ids[i]);
  }
  EXPECT_EQ(t.size(), 100'003u);
  EXPECT_THROW(t.at(100'003), std::out_of_range);
}

TEST(StringTable, ACopyHoldsItsOwnStringsWithTheSameIds) {
  StringTable copy;
  StringId a = 0, b = 0;
  {
    StringTable t;
    a = t.intern("forward-compute");
    b = t.intern("a name long enough not to fit in a std::string's own bytes");
    copy = t;
  }  // the original's blocks are gone
  EXPECT_EQ(copy.at(a), "forward-compute");
  EXPECT_EQ(copy.at(b), "a name long enough not to fit in a std::string's own bytes");
  StringId found = 0;
  ASSERT_TRUE(copy.find("forward-compute", &found));
  EXPECT_EQ(found, a);
  StringTable moved = std::move(copy);
  EXPECT_EQ(moved.at(b), "a name long enough not to fit in a std::string's own bytes");
  EXPECT_EQ(moved.intern("new"), 3u);
}

// A loaded rank's table is moved into one block of its size (RankTrace::settle): its ids and
// strings stay, a lookup finds them, and interning after it goes on from there.
TEST(StringTable, ShrunkToFitKeepsEveryIdAndStringAndGrowsAgain) {
  StringTable t;
  std::vector<StringId> ids;
  for (int i = 0; i < 300; ++i) ids.push_back(t.intern("range " + std::to_string(i)));
  const StringId empty = t.intern("");
  const std::string longer(5'000, 'y');  // a block of its own before
  const StringId big = t.intern(longer);
  t.shrinkToFit();
  EXPECT_EQ(t.size(), 302u);
  EXPECT_EQ(t.at(empty), "");
  EXPECT_EQ(t.at(big), longer);
  for (int i = 0; i < 300; ++i) {
    const std::string_view s = t.at(ids[i]);
    ASSERT_EQ(s, "range " + std::to_string(i));
    EXPECT_EQ(std::strlen(s.data()), s.size()) << "NUL-terminated";
    StringId found = 0;
    ASSERT_TRUE(t.find(s, &found));
    EXPECT_EQ(found, ids[i]);
  }
  EXPECT_EQ(t.intern("range 7"), ids[7]);
  const StringId added = t.intern("added after");
  EXPECT_EQ(added, 302u);
  EXPECT_EQ(t.at(added), "added after");
  EXPECT_EQ(t.at(ids[299]), "range 299") << "the shrunk block is kept as blocks are added";
  t.shrinkToFit();
  t.shrinkToFit();
  EXPECT_EQ(t.at(added), "added after");
  StringTable empty2;
  empty2.shrinkToFit();
  EXPECT_EQ(empty2.intern("first"), 1u);
}

// A small table (a rank of an op-level timeline) drops its index when shrunk and is searched in
// line: it finds what it holds and nothing else, and interning after it builds the index again,
// also as the table grows past the in-line size.
TEST(StringTable, ASmallShrunkTableFindsInLineAndIndexesAgainWhenInterned) {
  StringTable t;
  std::vector<StringId> ids;
  const size_t n = StringTable::kSearchedInLineMost - 1;  // with "": the most searched in line
  for (size_t i = 0; i < n; ++i) ids.push_back(t.intern("op " + std::to_string(i)));
  t.shrinkToFit();
  StringId found = 99;
  EXPECT_FALSE(t.find("op " + std::to_string(n), &found));
  EXPECT_EQ(found, 99u);
  ASSERT_TRUE(t.find("", &found));
  EXPECT_EQ(found, 0u);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_TRUE(t.find("op " + std::to_string(i), &found));
    EXPECT_EQ(found, ids[i]);
    EXPECT_EQ(t.intern("op " + std::to_string(i)), ids[i]) << "no second id once reindexed";
  }
  EXPECT_EQ(t.size(), n + 1);
  for (size_t i = n; i < 4 * n; ++i) {
    EXPECT_EQ(t.intern("op " + std::to_string(i)), i + 1);
  }
  t.shrinkToFit();  // too large to drop its index now
  for (size_t i = 0; i < 4 * n; ++i) {
    ASSERT_TRUE(t.find("op " + std::to_string(i), &found));
    EXPECT_EQ(found, i + 1);
  }
}

TEST(SortByStart, PermutesEveryColumnTogether) {
  Kernels k;
  for (TimeNs s : {30, 10, 20}) {
    k.start.push_back(s);
    k.end.push_back(s + 5);
    k.stream.push_back(static_cast<StreamIndex>(s));
    k.name.push_back(static_cast<StringId>(s / 10));
    k.correlation.push_back(static_cast<uint32_t>(s * 2));
  }
  sortByStart(k);
  EXPECT_EQ(k.start, (std::vector<TimeNs>{10, 20, 30}));
  EXPECT_EQ(k.end, (std::vector<TimeNs>{15, 25, 35}));
  EXPECT_EQ(k.stream, (std::vector<StreamIndex>{10, 20, 30}));
  EXPECT_EQ(k.name, (std::vector<StringId>{1, 2, 3}));
  EXPECT_EQ(k.correlation, (std::vector<uint32_t>{20, 40, 60}));
}

TEST(SortByStart, KeepsRecordedOrderOfEqualStarts) {
  NvtxRanges r;
  for (uint16_t depth : {0, 1, 2}) {
    r.start.push_back(100);
    r.end.push_back(200 - depth);
    r.thread.push_back(0);
    r.domain.push_back(0);
    r.name.push_back(depth);
    r.depth.push_back(depth);
    r.kind.push_back(RangeKind::PushPop);
  }
  r.start[0] = 101;  // force a sort
  sortByStart(r);
  EXPECT_EQ(r.depth, (std::vector<uint16_t>{1, 2, 0}));
}

TEST(StableSortRuns, IsStableSortOnFewRunsAndOnMany) {
  // Runs of ascending keys with repeats (an importer's sorted events and a few appended), from one
  // run to more than the 64 it merges: the same order as std::stable_sort, ties in input order.
  std::mt19937 random(28);
  for (int runs : {1, 2, 3, 7, 63, 64, 65, 200}) {
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<std::pair<int, int>> items;  // (key, position in the input)
      for (int run = 0; run < runs; ++run) {
        int key = static_cast<int>(random() % 50);
        const int n = static_cast<int>(random() % 40);
        for (int i = 0; i < n; ++i) {
          key += static_cast<int>(random() % 3);  // repeats within a run
          items.emplace_back(key, static_cast<int>(items.size()));
        }
      }
      const auto byKey = [](const auto& a, const auto& b) { return a.first < b.first; };
      auto expected = items;
      std::stable_sort(expected.begin(), expected.end(), byKey);
      stableSortRuns(items.begin(), items.end(), byKey);
      ASSERT_EQ(items, expected) << runs << " runs, trial " << trial;
    }
  }
}

TEST(RankTrace, ThreadAndStreamIndexesAreStable) {
  RankTrace t;
  EXPECT_EQ(t.threadIndex(500), 0u);
  EXPECT_EQ(t.threadIndex(600), 1u);
  EXPECT_EQ(t.threadIndex(500), 0u);
  EXPECT_EQ(t.streamIndex(0, 7), 0u);
  EXPECT_EQ(t.streamIndex(1, 7), 1u);
  EXPECT_EQ(t.streamIndex(0, 7), 0u);
}

}  // namespace
}  // namespace bubblescope::traces
