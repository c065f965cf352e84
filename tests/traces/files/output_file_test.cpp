// The one writer every output goes through: whole or not at all, only onto a new path or a
// regular file, write errors reported, nothing left behind when it fails.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>

#include "tests/support/temp_dir.h"
#include "traces/errors.h"
#include "traces/files/output_file.h"

namespace bubblescope::traces {
namespace {

namespace fs = std::filesystem;
using testing::readFile;
using testing::TempDir;

std::set<std::string> namesIn(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

std::string errorOf(const fs::path& target) {
  try {
    writeOutputFile(target, std::string_view("report"));
  } catch (const TraceError& e) {
    return e.what();
  }
  return "";
}

TEST(OutputFile, WritesANewFileAndNothingElse) {
  TempDir tmp;
  writeOutputFile(tmp / "r.json", [](std::ostream& out) { out << "{\"a\": 1}\n"; });
  EXPECT_EQ(readFile(tmp / "r.json"), "{\"a\": 1}\n");
  EXPECT_EQ(namesIn(tmp.path()), std::set<std::string>{"r.json"});
}

TEST(OutputFile, ReplacesARegularFileKeepingItsPermissions) {
  TempDir tmp;
  testing::writeFile(tmp / "r.md", "old");
  ::chmod((tmp / "r.md").c_str(), 0640);
  writeOutputFile(tmp / "r.md", std::string_view("new"));
  EXPECT_EQ(readFile(tmp / "r.md"), "new");
  struct stat st {};
  ASSERT_EQ(::stat((tmp / "r.md").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}

TEST(OutputFile, WritesThroughASymlinkAndKeepsIt) {
  TempDir tmp;
  testing::writeFile(tmp / "real.html", "old");
  fs::create_symlink(tmp / "real.html", tmp / "link.html");
  writeOutputFile(tmp / "link.html", std::string_view("new"));
  EXPECT_TRUE(fs::is_symlink(tmp / "link.html"));
  EXPECT_EQ(readFile(tmp / "real.html"), "new");
}

TEST(OutputFile, FifoIsRefusedAndLeftInPlace) {
  TempDir tmp;
  ASSERT_EQ(::mkfifo((tmp / "pipe").c_str(), 0600), 0);
  const std::string e = errorOf(tmp / "pipe");
  EXPECT_NE(e.find((tmp / "pipe").string() + ": exists and is not a regular file"),
            std::string::npos)
      << e;
  EXPECT_TRUE(fs::is_fifo(tmp / "pipe"));
  EXPECT_EQ(namesIn(tmp.path()), std::set<std::string>{"pipe"});
}

// A private copy of /dev/null's node (only root may make one), so a regression cannot replace
// the machine's.
bool makeNullDevice(const fs::path& node) {
  return ::geteuid() == 0 && ::mknod(node.c_str(), S_IFCHR | 0666, ::makedev(1, 3)) == 0;
}

TEST(OutputFile, DeviceNodeIsRefusedAndLeftInPlace) {
  TempDir tmp;
  if (!makeNullDevice(tmp / "null")) GTEST_SKIP() << "only root can make a device node";
  const std::string e = errorOf(tmp / "null");
  EXPECT_NE(e.find((tmp / "null").string() + ": exists and is not a regular file"),
            std::string::npos)
      << e;
  EXPECT_TRUE(fs::is_character_file(tmp / "null"));
}

TEST(OutputFile, DirectoryIsRefused) {
  TempDir tmp;
  fs::create_directory(tmp / "out");
  EXPECT_NE(errorOf(tmp / "out").find("is a directory"), std::string::npos);
  EXPECT_TRUE(fs::is_empty(tmp / "out"));
}

TEST(OutputFile, MissingDirectoryIsNamed) {
  TempDir tmp;
  const std::string e = errorOf(tmp / "no" / "r.json");
  EXPECT_EQ(e, (tmp / "no" / "r.json").string() + ": cannot be written: No such file or directory");
}

// A file size limit makes writes fail as a full disk does, in a child so the test process keeps
// its limits. The child reports through its exit code: 0 when the error named the file, the
// target was not created and no temporary file was left; 1 otherwise.
TEST(OutputFile, WriteErrorIsReportedAndLeavesNoFile) {
  TempDir tmp;
  const fs::path target = tmp / "big.html";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    bool named = false;
    try {
      writeOutputFile(target, [](std::ostream& out) {
        for (int i = 0; i < 100000; ++i) out << "a line of the report\n";
      });
    } catch (const TraceError& e) {
      named = std::string(e.what()) == target.string() + ": cannot be written: File too large";
    }
    ::_exit(named && namesIn(tmp.path()).empty() ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_TRUE(namesIn(tmp.path()).empty());
}

TEST(OutputFile, PublishRefusesAFifoAndRemovesTheTemporaryFile) {
  TempDir tmp;
  ASSERT_EQ(::mkfifo((tmp / "rank-00000.sqlite").c_str(), 0600), 0);
  testing::writeFile(tmp / ".import.sqlite", "trace");
  EXPECT_THROW(publishOutputFile(tmp / ".import.sqlite", tmp / "rank-00000.sqlite"), TraceError);
  EXPECT_EQ(namesIn(tmp.path()), std::set<std::string>{"rank-00000.sqlite"});
  EXPECT_TRUE(fs::is_fifo(tmp / "rank-00000.sqlite"));
}

}  // namespace
}  // namespace bubblescope::traces
