// Reading a run directory: every rank, in rank order, in parallel, with progress.
#include <atomic>

#include <gtest/gtest.h>

#include "tests/support/temp_dir.h"
#include "tests/traces/sample_trace.h"
#include "traces/sqlite/run_reader.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::traces {
namespace {

using testing::sampleTrace;
using testing::TempDir;
using testing::writeFile;

TEST(RunReader, ReadsEveryRankInRankOrder) {
  TempDir dir;
  // File names deliberately not in rank order.
  writeRankTrace(sampleTrace(2), dir / "a.sqlite");
  writeRankTrace(sampleTrace(0), dir / "b.sqlite");
  writeRankTrace(sampleTrace(1), dir / "c.sqlite");
  writeRankTrace(sampleTrace(3), dir / "d.sqlite");
  writeFile(dir / "truth.json", "{}");  // other files in a run directory are ignored

  std::atomic<size_t> calls{0};
  size_t lastTotal = 0;
  RunReadOptions options;
  options.threads = 3;
  options.progress = [&](size_t, size_t total) {
    ++calls;
    lastTotal = total;
  };
  const traces::Run run = readRun(dir.path(), options);
  ASSERT_EQ(run.ranks.size(), 4u);
  for (int r = 0; r < 4; ++r) EXPECT_EQ(run.ranks[r].meta.rank, r);
  EXPECT_EQ(calls, 4u);
  EXPECT_EQ(lastTotal, 4u);
  EXPECT_EQ(run.eventCount(), 4 * sampleTrace(0).eventCount());
}

TEST(RunReader, AcceptsASingleFile) {
  TempDir dir;
  writeRankTrace(sampleTrace(5, 8), dir / "rank-00005.sqlite");
  const traces::Run run = readRun(dir / "rank-00005.sqlite");
  ASSERT_EQ(run.ranks.size(), 1u);
  EXPECT_EQ(run.ranks[0].meta.worldSize, 8);
  EXPECT_EQ(run.dir, dir.path());
}

TEST(RunReader, RanklessFilesComeAfterRankedOnesByName) {
  TempDir dir;
  RankTrace anon = sampleTrace(0);
  anon.meta.rank = -1;
  writeRankTrace(anon, dir / "pid-100.sqlite");
  writeRankTrace(sampleTrace(0), dir / "rank-00000.sqlite");
  const traces::Run run = readRun(dir.path());
  ASSERT_EQ(run.ranks.size(), 2u);
  EXPECT_EQ(run.ranks[0].meta.rank, 0);
  EXPECT_EQ(run.ranks[1].file.filename(), "pid-100.sqlite");
}

}  // namespace
}  // namespace bubblescope::traces
