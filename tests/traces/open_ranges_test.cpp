// Schema 2: the ranges a rank was still inside and when it was last seen alive survive a write
// and read; a schema 1 file (written before they existed) still reads, with none.
#include <sqlite3.h>

#include <gtest/gtest.h>

#include "tests/support/temp_dir.h"
#include "tests/traces/sample_trace.h"
#include "traces/format/schema.h"
#include "traces/sqlite/trace_reader.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::traces {
namespace {

using testing::sampleTrace;
using testing::TempDir;

RankTrace withOpenRanges() {
  RankTrace t = sampleTrace(1);
  const ThreadIndex th = t.threadIndex(777);
  for (auto [start, name, depth] : {std::tuple{int64_t{1000}, "step 0", 0},
                                    std::tuple{int64_t{2000}, "RECV B mb=3 from=2", 1}}) {
    t.openRanges->start.push_back(start);
    t.openRanges->thread.push_back(th);
    t.openRanges->domain.push_back(0);
    t.openRanges->name.push_back(t.strings.intern(name));
    t.openRanges->depth.push_back(static_cast<uint16_t>(depth));
    t.openRanges->kind.push_back(RangeKind::PushPop);
  }
  t.meta.aliveNs = 123456789;
  return t;
}

TEST(OpenRanges, OpenRangesAndAliveTimeRoundTrip) {
  TempDir dir;
  writeRankTrace(withOpenRanges(), dir / "rank-00001.sqlite");
  const RankTrace out = readRankTrace(dir / "rank-00001.sqlite");
  EXPECT_EQ(out.meta.schemaVersion, kSchemaVersion);
  EXPECT_EQ(out.meta.aliveNs, 123456789);
  ASSERT_EQ(out.openRanges->size(), 2u);
  EXPECT_EQ(out.strings.at(out.openRanges->name[1]), "RECV B mb=3 from=2");
  EXPECT_EQ(out.openRanges->start[1], 2000);
  EXPECT_EQ(out.openRanges->depth[1], 1);
  EXPECT_EQ(out.threads.at(out.openRanges->thread[1]).tid, 777u);
}

TEST(OpenRanges, SchemaOneFileStillReads) {
  TempDir dir;
  const auto file = dir / "rank-00001.sqlite";
  writeRankTrace(sampleTrace(1), file);
  // What a bubblescope of schema 1 wrote: no open_ranges table, no alive_ns.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "DROP TABLE open_ranges; DELETE FROM meta WHERE key='alive_ns'; "
                         "UPDATE meta SET value='1' WHERE key='schema_version';",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  const RankTrace out = readRankTrace(file);
  EXPECT_EQ(out.meta.schemaVersion, 1);
  EXPECT_EQ(out.openRanges->size(), 0u);
  EXPECT_EQ(out.meta.aliveNs, 0);
  EXPECT_EQ(out.ranges->size(), sampleTrace(1).ranges->size());
}

TEST(OpenRanges, WriterReplacesTheSnapshot) {
  TempDir dir;
  RankMeta meta;
  meta.rank = 0;
  {
    TraceWriter w(dir / "t.sqlite", meta);
    const StringId a = w.intern("F mb=1"), b = w.intern("RECV F mb=2 from=0");
    w.replaceOpenRanges({{10, 5, 0, a, 0, RangeKind::PushPop}});
    w.commit();
    w.replaceOpenRanges({{20, 5, 0, b, 0, RangeKind::PushPop}});
    w.setAliveNs(99);
    w.commit();
  }
  const RankTrace out = readRankTrace(dir / "t.sqlite");
  ASSERT_EQ(out.openRanges->size(), 1u);
  EXPECT_EQ(out.strings.at(out.openRanges->name[0]), "RECV F mb=2 from=0");
  EXPECT_EQ(out.meta.aliveNs, 99);
}

}  // namespace
}  // namespace bubblescope::traces
