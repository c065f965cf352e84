// What TraceWriter leaves on disk: nothing when it cannot finish making a trace (a file without
// its meta table is no trace, and a run directory holding one does not load), and otherwise files
// with the mode the umask gives, or the owner's only when asked.
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>

#include "tests/support/temp_dir.h"
#include "traces/errors.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::traces {
namespace {

using testing::TempDir;
namespace fs = std::filesystem;

// Makes a trace in a child under a file size limit of `kib` KiB (SIGXFSZ ignored, so writes
// beyond it fail as on a full disk). The child's exit code: 0 if the writer threw TraceError,
// 1 if it made the trace, 2 for anything else.
int makeTraceUnderLimit(const fs::path& file, int kib, const RankMeta& meta) {
  const pid_t pid = fork();
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{rlim_t(kib) * 1024, rlim_t(kib) * 1024};
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(2);
    int code = 2;
    try {
      TraceWriter w(file, meta);
      code = 1;
    } catch (const TraceError&) {
      code = 0;
    } catch (...) {
    }
    _exit(code);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::vector<std::string> filesIn(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  return names;
}

TEST(TraceWriterFiles, NoRoomForTheSchemaLeavesNoFile) {
  TempDir dir;
  // 40 KiB: the file's first page is written, the schema (about 350 KB of WAL) is not.
  EXPECT_EQ(makeTraceUnderLimit(dir / "rank-00004.sqlite", 40, RankMeta{}), 0);
  EXPECT_TRUE(filesIn(dir.path()).empty()) << ::testing::PrintToString(filesIn(dir.path()));
}

TEST(TraceWriterFiles, NoRoomForTheMetaLeavesNoFile) {
  TempDir dir;
  RankMeta meta;
  meta.extra["big"] = std::string(2 << 20, 'x');  // the schema fits in 1 MiB, this does not
  EXPECT_EQ(makeTraceUnderLimit(dir / "rank-00004.sqlite", 1024, meta), 0);
  EXPECT_TRUE(filesIn(dir.path()).empty()) << ::testing::PrintToString(filesIn(dir.path()));
}

TEST(TraceWriterFiles, ATakenNameIsTraceFileExistsAndTheFileStays) {
  TempDir dir;
  testing::writeFile(dir / "t.sqlite", "someone else's");
  EXPECT_THROW({ TraceWriter w(dir / "t.sqlite", RankMeta{}); }, TraceFileExists);
  EXPECT_EQ(testing::readFile(dir / "t.sqlite"), "someone else's");
  EXPECT_EQ(filesIn(dir.path()).size(), 1u);
}

mode_t modeOf(const fs::path& file) {
  struct stat st {};
  EXPECT_EQ(::stat(file.c_str(), &st), 0) << file;
  return st.st_mode & 0777;
}

// The umask of this process for one scope.
class Umask {
 public:
  explicit Umask(mode_t mask) : saved_(::umask(mask)) {}
  ~Umask() { ::umask(saved_); }

 private:
  mode_t saved_;
};

// A shared run directory is analysed by a teammate: traces are 0644 under umask 022, their -wal
// and -shm alike (SQLite gives them the file's mode), as any tool's output.
TEST(TraceWriterFiles, FilesFollowTheUmask) {
  TempDir dir;
  const Umask mask(022);
  TraceWriter w(dir / "t.sqlite", RankMeta{});
  w.commit();
  EXPECT_EQ(modeOf(dir / "t.sqlite"), 0644u);
  EXPECT_EQ(modeOf(dir / "t.sqlite-wal"), 0644u);
  EXPECT_EQ(modeOf(dir / "t.sqlite-shm"), 0644u);
  const Umask strict(077);
  writeRankTrace(RankTrace{}, dir / "u.sqlite");
  EXPECT_EQ(modeOf(dir / "u.sqlite"), 0600u);
}

TEST(TraceWriterFiles, OwnerOnlyFilesAre0600WhateverTheUmask) {
  TempDir dir;
  const Umask mask(0);
  TraceWriter w(dir / "t.sqlite", RankMeta{}, TraceAccess::OwnerOnly);
  w.commit();
  EXPECT_EQ(modeOf(dir / "t.sqlite"), 0600u);
  EXPECT_EQ(modeOf(dir / "t.sqlite-wal"), 0600u);
  EXPECT_EQ(modeOf(dir / "t.sqlite-shm"), 0600u);
}

}  // namespace
}  // namespace bubblescope::traces
