// Every output is written whole or not at all, and only onto a new path or a regular file
// (issue 19): `engine run --truth` renamed over whatever the path held (a device node as root),
// and a report or export cut short by a full disk was left behind.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>
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
  job.schedule = engine::Schedule::oneF1B(4, 8);
  job.steps = 3;
  fs::create_directories(dir);
  for (const auto& t : synthesize(job).ranks) {
    traces::writeRankTrace(t, dir / ("rank-0000" + std::to_string(t.meta.rank) + ".sqlite"));
  }
}

std::set<std::string> namesIn(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

std::vector<std::string> engineRun(const fs::path& truth) {
  return {"engine", "run",     "--schedule", "1f1b",    "-p",    "2",       "-m",
          "2",      "--steps", "1",          "--op-ms", "1,1,1", "--truth", truth.string()};
}

void expectRefused(const ProcessResult& r, const fs::path& target) {
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(target.string() + ": exists and is not a regular file"), std::string::npos)
      << r.err;
}

TEST(OutputSafety, TruthOntoAFifoIsRefusedAndTheFifoStays) {
  TempDir tmp;
  ASSERT_EQ(::mkfifo((tmp / "truth").c_str(), 0600), 0);
  expectRefused(runBubblescope(engineRun(tmp / "truth")), tmp / "truth");
  EXPECT_TRUE(fs::is_fifo(tmp / "truth"));
  EXPECT_EQ(namesIn(tmp.path()), std::set<std::string>{"truth"});
}

// As root `--truth /dev/null` replaced the machine's /dev/null; this uses a private copy of it.
TEST(OutputSafety, TruthOntoADeviceNodeIsRefusedAndTheNodeStays) {
  TempDir tmp;
  const fs::path node = tmp / "null";
  if (::geteuid() != 0 || ::mknod(node.c_str(), S_IFCHR | 0666, ::makedev(1, 3)) != 0) {
    GTEST_SKIP() << "only root can make a device node";
  }
  expectRefused(runBubblescope(engineRun(node)), node);
  EXPECT_TRUE(fs::is_character_file(node));
}

TEST(OutputSafety, TruthOntoARegularFileReplacesIt) {
  TempDir tmp;
  writeFile(tmp / "truth.json", "old");
  const ProcessResult r = runBubblescope(engineRun(tmp / "truth.json"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(readFile(tmp / "truth.json").find("\"schedule\""), std::string::npos);
  EXPECT_EQ(namesIn(tmp.path()), std::set<std::string>{"truth.json"});
}

// A file size limit fails the writes as a full disk does.
TEST(OutputSafety, ReportOnAFullDiskIsAnErrorAndLeavesNoFile) {
  TempDir tmp;
  writeRun(tmp / "run");
  fs::create_directory(tmp / "out");
  for (const char* name : {"report.html", "report.json", "report.md"}) {
    SCOPED_TRACE(name);
    const fs::path out = tmp / "out" / name;
    const ProcessResult r = runProcess(underFileSizeLimit(
        bubblescopeArgv({"analyze", (tmp / "run").string(), "-o", out.string()}), 1));
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_NE(r.err.find(out.string() + ": cannot be written: File too large"), std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("report written"), std::string::npos) << r.err;
    EXPECT_TRUE(namesIn(tmp / "out").empty());
  }
}

TEST(OutputSafety, ExportOnAFullDiskIsAnErrorAndLeavesNoFile) {
  TempDir tmp;
  writeRun(tmp / "run");
  fs::create_directory(tmp / "out");
  const fs::path out = tmp / "out" / "trace.json";
  const ProcessResult r = runProcess(underFileSizeLimit(
      bubblescopeArgv({"export", "perfetto", (tmp / "run").string(), "-o", out.string()}), 4));
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find(out.string() + ": cannot be written: File too large"), std::string::npos)
      << r.err;
  EXPECT_TRUE(namesIn(tmp / "out").empty());
}

TEST(OutputSafety, ReportOntoAFifoIsRefusedWithoutBlocking) {
  TempDir tmp;
  writeRun(tmp / "run");
  ASSERT_EQ(::mkfifo((tmp / "report.md").c_str(), 0600), 0);
  ProcessOptions o;
  o.timeout = std::chrono::seconds(20);
  const ProcessResult r =
      runBubblescope({"analyze", (tmp / "run").string(), "-o", (tmp / "report.md").string()}, o);
  EXPECT_FALSE(r.timedOut);
  expectRefused(r, tmp / "report.md");
  EXPECT_TRUE(fs::is_fifo(tmp / "report.md"));
}

// `hang -o` goes through the same writer as every report (issue 28, rule 4): a FIFO is refused
// without blocking, a device node is left alone, a full disk leaves no file.
TEST(OutputSafety, HangReportOntoAFifoOrADeviceIsRefusedAndOnAFullDiskLeavesNoFile) {
  TempDir tmp;
  writeRun(tmp / "run");
  ASSERT_EQ(::mkfifo((tmp / "hang.txt").c_str(), 0600), 0);
  ProcessOptions o;
  o.timeout = std::chrono::seconds(20);
  const ProcessResult fifo =
      runBubblescope({"hang", (tmp / "run").string(), "-o", (tmp / "hang.txt").string()}, o);
  EXPECT_FALSE(fifo.timedOut);
  expectRefused(fifo, tmp / "hang.txt");
  EXPECT_TRUE(fs::is_fifo(tmp / "hang.txt"));

  const ProcessResult device =
      runBubblescope({"hang", (tmp / "run").string(), "-o", "/dev/null"}, o);
  expectRefused(device, "/dev/null");
  EXPECT_TRUE(fs::is_character_file("/dev/null"));

  fs::create_directory(tmp / "out");
  const fs::path out = tmp / "out" / "hang.json";
  const ProcessResult full = runProcess(underFileSizeLimit(
      bubblescopeArgv({"hang", (tmp / "run").string(), "--format", "json", "-o", out.string()}),
      0));
  EXPECT_EQ(full.exitCode, 2) << full.err;
  EXPECT_NE(full.err.find(out.string() + ": cannot be written"), std::string::npos) << full.err;
  EXPECT_TRUE(namesIn(tmp / "out").empty());

  // And a plain path gets the whole report.
  const ProcessResult ok =
      runBubblescope({"hang", (tmp / "run").string(), "-o", (tmp / "out" / "h.txt").string()});
  EXPECT_EQ(ok.exitCode, 0) << ok.err;
  EXPECT_GT(fs::file_size(tmp / "out" / "h.txt"), 0u);
}

}  // namespace
}  // namespace bubblescope::testing
