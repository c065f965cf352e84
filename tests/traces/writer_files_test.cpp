// What TraceWriter leaves on disk when it cannot finish making a trace: nothing. A file without
// its meta table is no trace, and a run directory holding one does not load.
#include <signal.h>
#include <sys/resource.h>
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

}  // namespace
}  // namespace bubblescope::traces
