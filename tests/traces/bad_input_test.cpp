// Every bad input is one TraceError naming the file and the problem, never a crash.
#include <sqlite3.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "tests/support/temp_dir.h"
#include "tests/traces/sample_trace.h"
#include "traces/errors.h"
#include "traces/sqlite/run_reader.h"
#include "traces/sqlite/trace_reader.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::traces {
namespace {

using testing::sampleTrace;
using testing::TempDir;
using testing::writeFile;
namespace fs = std::filesystem;

// The message readRankTrace gives for `file`; fails the test if it does not throw.
std::string readError(const fs::path& file) {
  try {
    readRankTrace(file);
  } catch (const TraceError& e) {
    EXPECT_EQ(e.file(), file);
    const std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
    EXPECT_NE(msg.find(file.string()), std::string::npos) << "names the file: " << msg;
    return msg;
  }
  ADD_FAILURE() << "no error for " << file;
  return "";
}

void execSql(const fs::path& file, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
}

// A trace large enough to span many pages, closed cleanly (no WAL left beside it).
fs::path bigTrace(const TempDir& dir) {
  const fs::path file = dir / "big.sqlite";
  TraceWriter w(file, RankMeta{});
  const StringId name = w.intern("kernel");
  for (int i = 0; i < 20000; ++i) w.add(KernelRecord{i, i + 1, 0, 7, uint32_t(i), name});
  w.close();
  return file;
}

TEST(BadTraceInput, MissingFile) {
  TempDir dir;
  EXPECT_NE(readError(dir / "nope.sqlite").find("no such file"), std::string::npos);
}

TEST(BadTraceInput, EmptyFile) {
  TempDir dir;
  writeFile(dir / "e.sqlite", "");
  EXPECT_NE(readError(dir / "e.sqlite").find("empty"), std::string::npos);
}

TEST(BadTraceInput, NotSqlite) {
  TempDir dir;
  writeFile(dir / "x.sqlite", std::string(4096, 'x'));
  EXPECT_NE(readError(dir / "x.sqlite").find("not a SQLite database"), std::string::npos);
}

TEST(BadTraceInput, JsonFileIsNotSqlite) {
  TempDir dir;
  writeFile(dir / "trace.json", R"({"traceEvents": []})");
  EXPECT_NE(readError(dir / "trace.json").find("not a SQLite database"), std::string::npos);
}

TEST(BadTraceInput, SomeoneElsesSqliteDatabase) {
  TempDir dir;
  execSql(dir / "other.sqlite", "CREATE TABLE users(id INTEGER, name TEXT)");
  EXPECT_NE(readError(dir / "other.sqlite").find("not a bubblescope trace"), std::string::npos);
}

TEST(BadTraceInput, SqliteWithAForeignMetaTable) {
  TempDir dir;
  execSql(dir / "m.sqlite",
          "CREATE TABLE meta(key TEXT, value TEXT); INSERT INTO meta VALUES('format','nsys')");
  EXPECT_NE(readError(dir / "m.sqlite").find("not a bubblescope trace"), std::string::npos);
}

TEST(BadTraceInput, NewerSchemaAsksForAnUpgrade) {
  TempDir dir;
  writeRankTrace(sampleTrace(0), dir / "new.sqlite");
  execSql(dir / "new.sqlite", "UPDATE meta SET value='99' WHERE key='schema_version'");
  const std::string msg = readError(dir / "new.sqlite");
  EXPECT_NE(msg.find("schema 99"), std::string::npos) << msg;
  EXPECT_NE(msg.find("upgrade bubblescope"), std::string::npos) << msg;
}

TEST(BadTraceInput, NonNumericMetadata) {
  TempDir dir;
  writeRankTrace(sampleTrace(0), dir / "m.sqlite");
  execSql(dir / "m.sqlite", "UPDATE meta SET value='three' WHERE key='rank'");
  EXPECT_NE(readError(dir / "m.sqlite").find("'rank' is not a number"), std::string::npos);
}

TEST(BadTraceInput, TruncatedFile) {
  TempDir dir;
  const fs::path file = bigTrace(dir);
  fs::resize_file(file, fs::file_size(file) / 2);
  EXPECT_NE(readError(file).find("truncated"), std::string::npos);
}

TEST(BadTraceInput, CorruptPages) {
  TempDir dir;
  const fs::path file = bigTrace(dir);
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(fs::file_size(file) / 2));
    const std::string garbage(40000, '\xa5');
    f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  EXPECT_NE(readError(file).find("corrupt"), std::string::npos);
}

// A valid header over pages that are not a database: SQLite's own word for it, not that a
// private copy of a WAL (there is none) could not be made (issue 28).
TEST(BadTraceInput, ValidHeaderOverRandomPagesIsCorrupt) {
  TempDir dir;
  const fs::path good = bigTrace(dir);
  std::string bytes(16384 * 4, '\0');
  {
    std::ifstream in(good, std::ios::binary);
    in.read(bytes.data(), 100);
  }
  // Its page size and page count say the four pages the file holds (header bytes 16-17, 28-31).
  bytes[16] = 0x40;
  bytes[17] = 0x00;
  bytes[28] = bytes[29] = bytes[30] = 0;
  bytes[31] = 4;
  uint32_t x = 12345;
  for (size_t i = 100; i < bytes.size(); ++i) {
    x = x * 1103515245 + 12345;
    bytes[i] = static_cast<char>(x >> 24);
  }
  const fs::path file = dir / "random-pages.sqlite";
  writeFile(file, bytes);
  const std::string msg = readError(file);
  EXPECT_NE(msg.find("corrupt"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("private copy"), std::string::npos) << msg;
}

TEST(BadTraceInput, StringIdMissingFromTheStringsTable) {
  TempDir dir;
  writeRankTrace(sampleTrace(0), dir / "s.sqlite");
  execSql(dir / "s.sqlite", "UPDATE nvtx_ranges SET name_id=99999");
  EXPECT_NE(readError(dir / "s.sqlite").find("string id 99999"), std::string::npos);
}

TEST(BadRunInput, DirectoryWithoutTraces) {
  TempDir dir;
  writeFile(dir / "notes.txt", "hello");
  try {
    readRun(dir.path());
    FAIL() << "no error";
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("no bubblescope traces"), std::string::npos);
  }
}

TEST(BadRunInput, MissingDirectory) {
  TempDir dir;
  EXPECT_THROW(readRun(dir / "absent"), TraceError);
}

TEST(BadRunInput, TwoFilesClaimingOneRank) {
  TempDir dir;
  writeRankTrace(sampleTrace(1), dir / "a.sqlite");
  writeRankTrace(sampleTrace(1), dir / "b.sqlite");
  try {
    readRun(dir.path());
    FAIL() << "no error";
  } catch (const TraceError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("two traces claim rank 1"), std::string::npos) << msg;
    EXPECT_NE(msg.find("a.sqlite"), std::string::npos) << msg;
  }
}

// Two directories' rank-00001.sqlite were named "rank-00001.sqlite and rank-00001.sqlite".
TEST(BadRunInput, TwoFilesOfOneNameClaimingOneRankAreToldApartByTheirDirectories) {
  TempDir dir;
  std::filesystem::create_directories(dir / "node-a");
  std::filesystem::create_directories(dir / "node-b");
  writeRankTrace(sampleTrace(1), dir / "node-a" / "rank-00001.sqlite");
  writeRankTrace(sampleTrace(1), dir / "node-b" / "rank-00001.sqlite");
  try {
    readRunFiles({dir / "node-a" / "rank-00001.sqlite", dir / "node-b" / "rank-00001.sqlite"});
    FAIL() << "no error";
  } catch (const TraceError& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "node-a").string() +
                                         ": two traces claim rank 1: node-a/rank-00001.sqlite and "
                                         "node-b/rank-00001.sqlite");
  }
}

TEST(BadRunInput, OneBadFileFailsTheRunAndIsNamed) {
  TempDir dir;
  writeRankTrace(sampleTrace(0), dir / "rank-00000.sqlite");
  writeFile(dir / "rank-00001.sqlite", "garbage that is not sqlite at all, padded............");
  try {
    readRun(dir.path());
    FAIL() << "no error";
  } catch (const TraceError& e) {
    EXPECT_EQ(e.file(), dir / "rank-00001.sqlite");
  }
}

}  // namespace
}  // namespace bubblescope::traces
