// Schema 3: the job's device memory over time and each device's capacity survive a write and a
// read; a schema 2 file (written before they existed) still reads, with none; a corrupt amount is
// refused naming the file and the column.
#include <sqlite3.h>

#include <gtest/gtest.h>

#include "tests/support/temp_dir.h"
#include "tests/traces/sample_trace.h"
#include "traces/errors.h"
#include "traces/format/schema.h"
#include "traces/sqlite/trace_reader.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::traces {
namespace {

using testing::sampleTrace;
using testing::TempDir;

constexpr uint64_t kH100 = 85'520'809'984;  // an H100 80GB's totalGlobalMem

RankTrace withMemory() {
  RankTrace t = sampleTrace(1);
  t.devices.at(0).memoryBytes = kH100;
  // Appended out of order: the reader sorts by time.
  for (auto [ts, allocated, reserved] : {std::tuple{3000, int64_t{5} << 30, int64_t{8} << 30},
                                         std::tuple{1000, int64_t{1} << 30, int64_t{2} << 30},
                                         std::tuple{2000, kBytesUnknown, int64_t{4} << 30}}) {
    t.memory->start.push_back(ts);
    t.memory->device.push_back(0);
    t.memory->allocated.push_back(allocated);
    t.memory->reserved.push_back(reserved);
  }
  return t;
}

void execSql(const std::filesystem::path& file, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
}

TEST(MemoryUsage, SamplesAndCapacityRoundTrip) {
  TempDir dir;
  writeRankTrace(withMemory(), dir / "rank-00001.sqlite");
  const RankTrace out = readRankTrace(dir / "rank-00001.sqlite");
  EXPECT_EQ(out.meta.schemaVersion, 3);
  ASSERT_EQ(out.memory->size(), 3u);
  EXPECT_EQ(out.memory->start, (std::vector<TimeNs>{1000, 2000, 3000}));
  EXPECT_EQ(out.memory->reserved, (std::vector<int64_t>{2ll << 30, 4ll << 30, 8ll << 30}));
  EXPECT_EQ(out.memory->allocated, (std::vector<int64_t>{1ll << 30, kBytesUnknown, 5ll << 30}));
  EXPECT_EQ(out.eventCount(), withMemory().eventCount());
  ASSERT_EQ(out.devices.size(), 1u);
  EXPECT_EQ(out.devices[0].memoryBytes, kH100);
}

TEST(MemoryUsage, SchemaTwoFileStillReads) {
  TempDir dir;
  const auto file = dir / "rank-00001.sqlite";
  writeRankTrace(withMemory(), file);
  // What a bubblescope of schema 2 wrote: no memory_usage table, devices without memory_bytes.
  execSql(file,
          "DROP TABLE memory_usage; ALTER TABLE devices DROP COLUMN memory_bytes; "
          "UPDATE meta SET value='2' WHERE key='schema_version';");
  const RankTrace out = readRankTrace(file);
  EXPECT_EQ(out.meta.schemaVersion, 2);
  EXPECT_EQ(out.memory->size(), 0u);
  ASSERT_EQ(out.devices.size(), 1u);
  EXPECT_EQ(out.devices[0].memoryBytes, 0u);
  EXPECT_EQ(out.kernels->size(), sampleTrace(1).kernels->size());
}

TEST(MemoryUsage, NegativeAmountIsRefusedNamingTheColumn) {
  TempDir dir;
  const auto file = dir / "rank-00001.sqlite";
  writeRankTrace(withMemory(), file);
  execSql(file, "UPDATE memory_usage SET reserved = -5 WHERE ts = 2000");
  try {
    readRankTrace(file);
    FAIL() << "read a negative reserve";
  } catch (const TraceError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("rank-00001.sqlite"), std::string::npos) << msg;
    EXPECT_NE(msg.find("memory_usage.reserved = -5"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace bubblescope::traces
