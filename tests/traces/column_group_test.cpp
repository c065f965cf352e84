// A rank's event tables are made only once it has such events (column_group.h): reading an absent
// one makes nothing, a loader drops the ones it made empty, and a shard's bytes keep which ones a
// rank holds.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "traces/model/byte_codec.h"
#include "traces/model/sort.h"
#include "traces/model/trace.h"
#include "traces/model/trace_codec.h"

namespace bubblescope::traces {
namespace {

size_t tablesHeld(const RankTrace& t) {
  size_t n = 0;
  RankTrace::forEachGroup(t, [&](const auto& group) { n += group.held() ? 1 : 0; });
  return n;
}

TEST(ColumnGroup, AnAbsentTableReadsEmptyAndIsNotMade) {
  RankTrace t;
  const RankTrace& read = t;
  EXPECT_EQ(read.kernels->size(), 0u);
  EXPECT_TRUE(read.ncclCalls->start.empty());
  const Kernels& k = read.kernels;
  EXPECT_EQ(k.size(), 0u);
  EXPECT_EQ(read.eventCount(), 0u);
  EXPECT_FALSE(read.kernels.held());
  EXPECT_EQ(tablesHeld(t), 0u);
}

TEST(ColumnGroup, AnEmptyRankTakesAFractionOfItsInlineTables) {
  // Eleven tables of ~65 empty columns were 1,584 bytes of every RankTrace; now a pointer each.
  EXPECT_LE(sizeof(ColumnGroup<NcclCalls>), sizeof(void*));
  EXPECT_LT(sizeof(RankTrace), 800u);
}

TEST(ColumnGroup, WritingMakesTheTableAndDroppingFreesOnlyEmptyOnes) {
  RankTrace t;
  t.ranges->start.push_back(10);
  t.ranges->end.push_back(20);
  t.ranges->thread.push_back(0);
  t.ranges->domain.push_back(0);
  t.ranges->name.push_back(t.strings.intern("forward"));
  t.ranges->depth.push_back(0);
  t.ranges->kind.push_back(RangeKind::PushPop);
  (void)t.kernels->size();  // a non-const read makes the table
  EXPECT_TRUE(t.kernels.held());
  EXPECT_EQ(tablesHeld(t), 2u);
  t.dropEmptyTables();
  EXPECT_FALSE(t.kernels.held());
  ASSERT_TRUE(t.ranges.held());
  EXPECT_EQ(t.eventCount(), 1u);
  EXPECT_EQ(t.ranges->end[0], 20);
}

TEST(ColumnGroup, CopiesHoldTheirOwnTablesAndMovesTakeThem) {
  RankTrace a;
  a.marks->start.push_back(5);
  a.marks->thread.push_back(0);
  a.marks->domain.push_back(0);
  a.marks->name.push_back(0);
  RankTrace b = a;
  b.marks->start[0] = 6;
  EXPECT_EQ(a.marks->start[0], 5);
  EXPECT_FALSE(b.kernels.held());
  RankTrace c = std::move(b);
  EXPECT_EQ(c.marks->start[0], 6);
  a = c;
  EXPECT_EQ(a.marks->start[0], 6);
  a.marks = NvtxMarks{};
  EXPECT_TRUE(a.marks.held());
  EXPECT_EQ(a.marks->size(), 0u);
  a.marks.reset();
  EXPECT_FALSE(a.marks.held());
}

TEST(ColumnGroup, ThreadsThatMakeOneTableAtOnceShareOne) {
  // Threads reading one rank through non-const references could do so before tables were lazy;
  // making the table is their only write, and the first one made wins.
  for (int round = 0; round < 50; ++round) {
    RankTrace t;
    std::vector<const Kernels*> seen(4, nullptr);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < seen.size(); ++i) {
      threads.emplace_back([&, i] { seen[i] = &*t.kernels; });
    }
    for (auto& th : threads) th.join();
    for (const Kernels* k : seen) EXPECT_EQ(k, seen[0]) << "round " << round;
  }
}

TEST(ColumnGroup, SortingLeavesAbsentTablesAbsent) {
  RankTrace t;
  t.kernels->start = {30, 10};
  t.kernels->end = {40, 20};
  t.kernels->stream = {0, 0};
  t.kernels->correlation = {2, 1};
  t.kernels->name = {0, 0};
  sortEvents(t);
  EXPECT_EQ(t.kernels->start, (std::vector<TimeNs>{10, 30}));
  EXPECT_EQ(tablesHeld(t), 1u);
}

TEST(ColumnGroup, AShardKeepsWhichTablesARankHolds) {
  RankTrace t;
  t.memory->start = {1, 2};
  t.memory->device = {0, 0};
  t.memory->allocated = {100, 200};
  t.memory->reserved = {300, 400};
  std::string bytes;
  ByteWriter out(bytes);
  encodeRankTrace(t, out);
  EXPECT_EQ(tablesHeld(t), 1u);  // encoding made nothing
  ByteReader in(bytes);
  RankTrace back = decodeRankTrace(in);
  EXPECT_EQ(tablesHeld(back), 1u);
  EXPECT_EQ(back.memory->allocated, (std::vector<int64_t>{100, 200}));
}

}  // namespace
}  // namespace bubblescope::traces
