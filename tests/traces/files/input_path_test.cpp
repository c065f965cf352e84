// The one check every input path goes through: regular files and directories pass; FIFOs, sockets
// and devices are refused at once (opening a FIFO would block until a writer came).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "tests/support/temp_dir.h"
#include "traces/errors.h"
#include "traces/files/input_path.h"

namespace bubblescope::traces {
namespace {

using testing::TempDir;

std::string errorOf(const std::filesystem::path& p) {
  try {
    checkInputPath(p);
  } catch (const TraceError& e) {
    return e.what();
  }
  return "";
}

TEST(InputPath, RegularFilesAndDirectoriesPass) {
  TempDir tmp;
  testing::writeFile(tmp / "a.json", "{}");
  EXPECT_EQ(checkInputPath(tmp / "a.json"), InputKind::File);
  EXPECT_EQ(checkInputPath(tmp.path()), InputKind::Directory);
  EXPECT_NO_THROW(checkInputFile(tmp / "a.json"));
}

TEST(InputPath, FifoIsRefusedWithoutBlocking) {
  TempDir tmp;
  ASSERT_EQ(::mkfifo((tmp / "pipe").c_str(), 0600), 0);
  const std::string e = errorOf(tmp / "pipe");
  EXPECT_NE(e.find((tmp / "pipe").string()), std::string::npos) << e;
  EXPECT_NE(e.find("a FIFO, not a regular file or a directory"), std::string::npos) << e;
}

TEST(InputPath, DeviceIsRefused) {
  const std::string e = errorOf("/dev/null");
  EXPECT_NE(e.find("/dev/null: a character device"), std::string::npos) << e;
}

TEST(InputPath, MissingPathIsNamed) {
  TempDir tmp;
  EXPECT_EQ(errorOf(tmp / "nope"), (tmp / "nope").string() + ": no such file or directory");
}

TEST(InputPath, UnreadableFileSaysPermissionDeniedNotMissing) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads every file";
  TempDir tmp;
  testing::writeFile(tmp / "secret.json", "{}");
  ::chmod((tmp / "secret.json").c_str(), 0);
  EXPECT_EQ(errorOf(tmp / "secret.json"),
            (tmp / "secret.json").string() + ": cannot be read: Permission denied");
}

TEST(InputPath, DirectoryWhereAFileIsNeeded) {
  TempDir tmp;
  try {
    checkInputFile(tmp.path());
    FAIL() << "a directory passed as a file";
  } catch (const TraceError& e) {
    EXPECT_EQ(std::string(e.what()), tmp.path().string() + ": a directory, not a file");
  }
}

}  // namespace
}  // namespace bubblescope::traces
