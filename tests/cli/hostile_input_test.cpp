// Inputs found by adversarial probes (issue 19): each used to crash or hang a loader, or be read
// wrong without a word. Now each is either read correctly or refused in one line naming the file,
// exit code 2.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>

#include "reference_engine/schedule/schedule.h"
#include "tests/analyzer/synthetic_run.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::testing {
namespace {

namespace fs = std::filesystem;

void writeRun(const fs::path& dir) {
  SyntheticJob job;
  job.schedule = engine::Schedule::oneF1B(2, 4);
  job.steps = 2;
  fs::create_directories(dir);
  for (const auto& t : synthesize(job).ranks) {
    traces::writeRankTrace(t, dir / ("rank-0000" + std::to_string(t.meta.rank) + ".sqlite"));
  }
}

void execSql(const fs::path& file, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

void expectOneLine(const ProcessResult& r, const std::string& mustSay) {
  EXPECT_FALSE(r.timedOut) << "hung: " << mustSay;
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(mustSay), std::string::npos) << r.err;
}

ProcessOptions quick() {
  ProcessOptions o;
  o.timeout = std::chrono::seconds(20);
  o.env = {{"DISPLAY", ":987"}};  // view: no window is ever needed to refuse an input
  return o;
}

// A Kineto trace whose one huge range name (an NVTX string kept whole) made std::regex recurse
// until the stack overflowed: analyze, export, view and check died with SIGSEGV.
std::string kinetoWithLongName() {
  return "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"" +
         std::string(40000, 'A') +
         "\", \"pid\": 0, \"tid\": 0, \"ts\": 0, \"dur\": 10},"
         " {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"F mb=0\", \"pid\": 0,"
         " \"tid\": 0, \"ts\": 20, \"dur\": 10}]}";
}

TEST(HostileInput, LongRangeNameIsAnalysedAndExported) {
  TempDir tmp;
  writeFile(tmp / "long.json", kinetoWithLongName());
  const ProcessResult a = runBubblescope({"analyze", (tmp / "long.json").string()}, quick());
  EXPECT_EQ(a.exitCode, 0) << a.err;
  EXPECT_NE(a.out.find("recognised by the bubblescope rule set"), std::string::npos) << a.out;
  const ProcessResult e = runBubblescope(
      {"export", "perfetto", (tmp / "long.json").string(), "-o", (tmp / "t.json").string()},
      quick());
  EXPECT_EQ(e.exitCode, 0) << e.err;
}

TEST(HostileInput, LongRangeNameAgainstAUserRuleStaysFast) {
  TempDir tmp;
  writeFile(tmp / "long.json", kinetoWithLongName());
  // Nested repetition: exponential for a backtracking matcher, linear for RE2.
  writeFile(tmp / "rules.json", R"j({"rules": [{"match": "(A|AA)*(A*)*B", "role": "other"},)j"
                                R"j( {"match": "F mb=(\\d+)", "kind": "F", "mb": 1}]})j");
  const auto begin = std::chrono::steady_clock::now();
  const ProcessResult r = runBubblescope(
      {"analyze", (tmp / "long.json").string(), "--rules", (tmp / "rules.json").string()}, quick());
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(10));
}

TEST(HostileInput, RulePatternRe2CannotRunIsRefusedNamingTheRule) {
  TempDir tmp;
  writeRun(tmp / "run");
  writeFile(tmp / "rules.json", R"j({"rules": [{"match": "(F) mb=\\1", "kind": "F"}]})j");
  expectOneLine(
      runBubblescope({"analyze", (tmp / "run").string(), "--rules", (tmp / "rules.json").string()},
                     quick()),
      (tmp / "rules.json").string() + ": rule 0: bad pattern");
}

// A FIFO named as an input blocked every loader in open() until a writer came.
TEST(HostileInput, FifoIsRefusedByEveryLoader) {
  TempDir tmp;
  writeRun(tmp / "run");
  const std::string fifo = (tmp / "pipe").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string run = (tmp / "run").string();
  const std::vector<std::vector<std::string>> commands = {
      {"analyze", fifo},
      {"import", "kineto", fifo, "-o", (tmp / "imported").string()},
      {"export", "perfetto", fifo, "-o", (tmp / "t.json").string()},
      {"view", fifo},
      {"check", "--baseline", fifo, run},
      {"analyze", run, "--rules", fifo},
  };
  for (const auto& args : commands) {
    std::string command;
    for (const std::string& a : args) command += a + " ";
    SCOPED_TRACE(command);
    expectOneLine(runBubblescope(args, quick()),
                  fifo + ": a FIFO, not a regular file or a directory");
  }
}

// meta.rank = 2^32 + 1 was cast to int and read as rank 1.
TEST(HostileInput, RankBeyondIntIsRefusedNamingTheField) {
  TempDir tmp;
  writeRun(tmp / "run");
  const fs::path file = tmp / "run" / "rank-00001.sqlite";
  execSql(file, "UPDATE meta SET value = '4294967297' WHERE key = 'rank'");
  expectOneLine(runBubblescope({"analyze", (tmp / "run").string()}, quick()),
                file.string() + ": meta.rank = 4294967297 is out of range (0 to 2147483647)");
}

TEST(HostileInput, RankNotBelowWorldSizeIsRefused) {
  TempDir tmp;
  writeRun(tmp / "run");
  const fs::path file = tmp / "run" / "rank-00001.sqlite";
  execSql(file, "UPDATE meta SET value = '7' WHERE key = 'rank'");
  expectOneLine(runBubblescope({"analyze", (tmp / "run").string()}, quick()),
                file.string() + ": meta.rank = 7 is out of range for meta.world_size = 2");
}

TEST(HostileInput, EventFieldOutOfRangeIsNamed) {
  TempDir tmp;
  writeRun(tmp / "run");
  const fs::path file = tmp / "run" / "rank-00000.sqlite";
  execSql(file, "UPDATE nvtx_ranges SET depth = 70000 WHERE rowid = 1");
  expectOneLine(runBubblescope({"analyze", (tmp / "run").string()}, quick()),
                file.string() + ": nvtx_ranges.depth = 70000 is out of range (0 to 65535)");
}

// A real in an integer column was truncated without a word and surfaced later as an error that
// named no file ("op costs must not be negative").
TEST(HostileInput, ValueOfTheWrongTypeIsNamedWithItsFile) {
  TempDir tmp;
  writeRun(tmp / "run");
  const fs::path file = tmp / "run" / "rank-00000.sqlite";
  execSql(file, "UPDATE nvtx_ranges SET end = 1.5e300 WHERE rowid = 1");
  expectOneLine(runBubblescope({"analyze", (tmp / "run").string()}, quick()),
                file.string() + ": corrupt: nvtx_ranges.end holds a real number, not an integer");
}

// Random bytes named *.sqlite were called "a bubblescope trace" by import, with a garbled hint.
TEST(HostileInput, ImportOfRandomBytesSaysWhatTheyAre) {
  TempDir tmp;
  std::string bytes;
  for (int i = 0; i < 5000; ++i) bytes += static_cast<char>((i * 7919) % 251);
  writeFile(tmp / "x.sqlite", bytes);
  expectOneLine(
      runBubblescope(
          {"import", "kineto", (tmp / "x.sqlite").string(), "-o", (tmp / "out").string()}, quick()),
      (tmp / "x.sqlite").string() + ": not a SQLite database, so not a bubblescope trace");
}

TEST(HostileInput, ImportOfOurOwnTraceSaysNoImportIsNeeded) {
  TempDir tmp;
  writeRun(tmp / "run");
  const fs::path file = tmp / "run" / "rank-00000.sqlite";
  expectOneLine(
      runBubblescope({"import", "nsys", file.string(), "-o", (tmp / "out").string()}, quick()),
      file.string() +
          ": a bubblescope trace already, not an Nsight Systems export: no import needed, "
          "'bubblescope analyze' reads it");
}

// CLI::PositiveNumber printed its bound, DBL_MAX, in 300 digits.
TEST(HostileInput, AttachStepsZeroSaysPositiveInOneShortLine) {
  const ProcessResult r = runBubblescope({"attach", "--all", "--steps", "0"}, quick());
  expectOneLine(r, "--steps: must be a whole number from 1 to 1000000 (got 0)");
  EXPECT_LT(r.err.size(), 120u) << r.err;
}

TEST(HostileInput, RecordOfAFileThatCannotRunSaysSoNotNotFound) {
  TempDir tmp;
  writeFile(tmp / "train.sh", "#!/bin/sh\necho hi\n");
  ::chmod((tmp / "train.sh").c_str(), 0644);
  expectOneLine(
      runBubblescope({"record", "-o", (tmp / "run").string(), "--", (tmp / "train.sh").string()},
                     quick()),
      (tmp / "train.sh").string() + ": cannot be run (not executable)");
}

}  // namespace
}  // namespace bubblescope::testing
