// Reading a trace never writes beside it: no -wal or -shm is left in the run directory, and a
// directory the reader cannot write (read-only media) reads, whether the trace was closed cleanly
// or its writer was killed (a WAL beside it, with or without its -shm).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>

#include "tests/support/temp_dir.h"
#include "traces/errors.h"
#include "traces/import/detect_input.h"
#include "traces/sqlite/read_only_open.h"
#include "traces/sqlite/trace_reader.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::traces {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

// Name -> size and modification time of everything in `dir`.
std::map<std::string, std::pair<uintmax_t, fs::file_time_type>> listing(const fs::path& dir) {
  std::map<std::string, std::pair<uintmax_t, fs::file_time_type>> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    out[e.path().filename().string()] = {e.file_size(), e.last_write_time()};
  }
  return out;
}

void writeRanges(TraceWriter& w, int batches) {
  const StringId name = w.intern("F mb=0");
  for (int batch = 0; batch < batches; ++batch) {
    for (int i = 0; i < 1000; ++i) {
      const TimeNs t = batch * 1000 + i;
      w.add(RangeRecord{t, t + 1, 1, 1, 0, name, 0, RangeKind::PushPop, 0, 0});
    }
    w.commit();
  }
}

void writeClean(const fs::path& file) {
  RankMeta meta;
  meta.rank = 0;
  TraceWriter w(file, meta);
  writeRanges(w, 3);
  w.close();
}

// A writer SIGKILLed after 3 committed batches: its -wal and -shm stay beside the file.
void writeKilled(const fs::path& file) {
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    RankMeta meta;
    meta.rank = 0;
    TraceWriter w(file, meta);
    writeRanges(w, 3);
    (void)!::write(ready[1], "x", 1);
    ::pause();
    ::_exit(0);
  }
  char c;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::close(ready[0]);
  ::close(ready[1]);
  ASSERT_TRUE(fs::exists(file.string() + "-wal"));
}

// Makes `dir` read-only to the reader: its files readable by all, the directory not writable.
// Root writes anywhere, so as root the reader runs as nobody (see readAsOtherUser).
void makeReadOnly(const fs::path& dir) {
  for (const auto& e : fs::directory_iterator(dir)) ::chmod(e.path().c_str(), 0444);
  ::chmod(dir.parent_path().c_str(), 0755);
  ::chmod(dir.c_str(), 0555);
}

// Reads `file` in a child that cannot write its directory; the exit code says how many thousand
// ranges it read (255: an error).
int thousandsReadFromReadOnly(const fs::path& file) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(254);
    try {
      ::_exit(static_cast<int>(readRankTrace(file).ranges->size() / 1000));
    } catch (const std::exception& e) {
      ::fprintf(stderr, "%s\n", e.what());
      ::_exit(255);
    }
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

class ReadOnlyTrace : public ::testing::Test {
 protected:
  void TearDown() override { ::chmod(dir_.c_str(), 0755); }
  TempDir tmp_;
  fs::path dir_ = tmp_ / "run";
  fs::path file_ = dir_ / "rank-00000.sqlite";
  void SetUp() override { fs::create_directory(dir_); }
};

TEST_F(ReadOnlyTrace, ReadingAndDetectingLeaveTheDirectoryAsItWas) {
  writeClean(file_);
  const auto before = listing(dir_);
  EXPECT_EQ(readRankTrace(file_).ranges->size(), 3000u);
  EXPECT_EQ(import::detectFile(file_).format, import::InputFormat::Bubblescope);
  EXPECT_EQ(readRankMeta(file_).rank, 0);
  EXPECT_EQ(listing(dir_), before);
}

// Not a file added, nor one changed: the killed writer's -shm is not rebuilt (its mtime moved on
// every read, issue 28).
TEST_F(ReadOnlyTrace, KilledWritersTraceIsReadWithoutAddingOrChangingFiles) {
  writeKilled(file_);
  EXPECT_FALSE(sqlite::writerHolds(file_.string() + "-shm"));
  const auto before = listing(dir_);
  EXPECT_EQ(readRankTrace(file_).ranges->size(), 3000u);
  EXPECT_EQ(readRankMeta(file_).rank, 0);
  EXPECT_EQ(listing(dir_), before);
}

// A running writer holds its -shm: its committed rows are read in place, through SQLite's WAL
// protocol.
TEST_F(ReadOnlyTrace, RunningWritersTraceIsReadInPlace) {
  RankMeta meta;
  meta.rank = 0;
  TraceWriter w(file_, meta);
  writeRanges(w, 2);
  // This process holds the lock, which its own probe cannot see: a child reads.
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const bool held = sqlite::writerHolds(file_.string() + "-shm");
    const auto plan = sqlite::planRead(file_);
    ::_exit(held && plan.how == sqlite::ReadPlan::InPlace
                ? static_cast<int>(readRankTrace(file_).ranges->size() / 1000)
                : 100);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
  w.close();
}

TEST_F(ReadOnlyTrace, CleanTraceReadsFromAReadOnlyDirectory) {
  writeClean(file_);
  makeReadOnly(dir_);
  const auto before = listing(dir_);
  EXPECT_EQ(thousandsReadFromReadOnly(file_), 3);
  EXPECT_EQ(listing(dir_), before);
}

TEST_F(ReadOnlyTrace, KilledWritersTraceReadsFromAReadOnlyDirectory) {
  writeKilled(file_);
  makeReadOnly(dir_);
  const auto before = listing(dir_);
  EXPECT_EQ(thousandsReadFromReadOnly(file_), 3);
  EXPECT_EQ(listing(dir_), before);
}

TEST_F(ReadOnlyTrace, WalWithoutItsShmReadsFromAReadOnlyDirectory) {
  writeKilled(file_);
  fs::remove(file_.string() + "-shm");  // copied without it, as a tool keeping only *.sqlite* might
  makeReadOnly(dir_);
  const auto before = listing(dir_);
  EXPECT_EQ(thousandsReadFromReadOnly(file_), 3);
  EXPECT_EQ(listing(dir_), before);
}

// A killed writer's file copied without its -wal holds nothing yet: say the -wal is missing,
// not that the file is not a trace (issue 28).
TEST_F(ReadOnlyTrace, KilledWritersFileWithoutItsWalSaysTheWalIsMissing) {
  writeKilled(file_);
  fs::remove(file_.string() + "-wal");
  fs::remove(file_.string() + "-shm");
  try {
    readRankTrace(file_);
    FAIL() << "read a trace whose data is in a missing WAL";
  } catch (const TraceError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(file_.string()), std::string::npos) << what;
    EXPECT_NE(what.find("rank-00000.sqlite-wal, which is missing"), std::string::npos) << what;
    EXPECT_EQ(what.find("no meta table"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace bubblescope::traces
