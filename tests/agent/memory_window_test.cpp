// The writer's side of a memory window: its trace carries the process's metadata, is pruned at
// most every 200 ms to what it keeps, and gives an image only within the size a snapshot may be.
#include "agent/core/memory_window.h"

#include <gtest/gtest.h>

#include "traces/sqlite/sqlite_db.h"
#include "traces/sqlite/trace_reader.h"

namespace bubblescope::agent {
namespace {

constexpr int64_t kMs = 1'000'000;

traces::RankTrace read(const std::string& image) {
  traces::sqlite::Database db = traces::sqlite::Database::fromBytes(image);
  return traces::readRankTrace(db, "image");
}

void addRange(traces::TraceWriter& t, int64_t start, int64_t end) {
  t.add(traces::RangeRecord{start, end, 1, 1, 0, t.intern("F mb=0"), 0, traces::RangeKind::PushPop,
                            0, 0});
  t.commit();
}

TEST(MemoryWindow, TraceHasTheProcessMetadataAndStartsAtTheWindow) {
  traces::RankMeta meta;
  meta.rank = 3;
  meta.runId = "run-7";
  meta.captureWindows = {{1, 2, "record"}};  // the file's, not the memory trace's
  auto trace = makeMemoryTrace(meta, 5'000 * kMs);
  const MemorySnapshot s = imageOf(*trace, 1 << 20);
  ASSERT_TRUE(s.ok) << s.error;
  const traces::RankTrace t = read(s.image);
  EXPECT_EQ(t.meta.rank, 3);
  EXPECT_EQ(t.meta.runId, "run-7");
  EXPECT_EQ(t.meta.startNs, 5'000 * kMs);
  EXPECT_TRUE(t.meta.captureWindows.empty());
}

TEST(MemoryWindow, PrunesAtMostEvery200MsToWhatItKeeps) {
  auto trace = makeMemoryTrace(traces::RankMeta{}, 0);
  MemoryPruning pruning;
  addRange(*trace, 0, 100 * kMs);
  addRange(*trace, 900 * kMs, 1'500 * kMs);
  pruning.afterCommit(*trace, 1'600 * kMs, 1'000 * kMs);  // cutoff 600 ms: the first goes
  EXPECT_EQ(pruning.cutoffNs(), 600 * kMs);
  EXPECT_EQ(read(trace->image()).ranges->size(), 1u);
  addRange(*trace, 1'700 * kMs, 1'750 * kMs);
  pruning.afterCommit(*trace, 1'700 * kMs, 100 * kMs);  // 100 ms later: not due yet
  EXPECT_EQ(pruning.cutoffNs(), 600 * kMs);
  EXPECT_EQ(read(trace->image()).ranges->size(), 2u);
  pruning.afterCommit(*trace, 1'800 * kMs, 100 * kMs);  // due: cutoff 1,700 ms
  EXPECT_EQ(pruning.cutoffNs(), 1'700 * kMs);
  EXPECT_EQ(read(trace->image()).ranges->size(), 1u);
}

TEST(MemoryWindow, AnImageOverTheLimitIsRefusedWithItsSize) {
  auto trace = makeMemoryTrace(traces::RankMeta{}, 0);
  for (int i = 0; i < 3000; ++i) addRange(*trace, i, i + 1);
  const MemorySnapshot s = imageOf(*trace, 64 * 1024);
  EXPECT_FALSE(s.ok);
  EXPECT_TRUE(s.image.empty());
  EXPECT_NE(s.error.find("MiB, more than a snapshot may be (0.1 MiB)"), std::string::npos)
      << s.error;
  EXPECT_NE(s.error.find("watch with a smaller keep"), std::string::npos) << s.error;
}

}  // namespace
}  // namespace bubblescope::agent
