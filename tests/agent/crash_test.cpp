// The agent never changes the job's fate: killed, signalled, or with nowhere to write, the job
// ends as it would have, with at most one line from the agent, and the trace keeps what was
// committed.
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "tests/agent/agent_test_support.h"
#include "tests/support/temp_dir.h"
#include "traces/sqlite/trace_reader.h"

namespace bubblescope::testing {
namespace {

namespace fs = std::filesystem;

// The agent preloaded by hand (no `record`), writing to `dir`.
ProcessOptions preloaded(const fs::path& dir) {
  return cleanEnv({{"LD_PRELOAD", kAgentLibrary}, {"BUBBLESCOPE_OUTPUT_DIR", dir.string()}});
}

std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

int64_t rangeCount(const fs::path& dir) {
  const auto files = traceFiles(dir);
  if (files.size() != 1) return -1;
  return static_cast<int64_t>(traces::readRankTrace(files[0]).ranges->size());
}

TEST(AgentCrash, SigkillLeavesAReadableTraceOfEveryCommittedBatch) {
  TempDir tmp;
  ProcessOptions o = cleanEnv();
  o.timeout = std::chrono::seconds(1);  // then the whole process group gets SIGKILL
  const auto r = recordApp(tmp / "run", {"stream"}, {}, o);
  ASSERT_TRUE(r.timedOut);
  const auto files = traceFiles(tmp / "run");
  ASSERT_EQ(files.size(), 1u);
  const traces::RankTrace t = traces::readRankTrace(files[0]);
  // A prefix of the stream: "range 0" .. "range k-1", none missing in between.
  const auto rows = sqlRows(files[0],
                            "SELECT count(*), max(CAST(substr(s.value, 7) AS INTEGER)) "
                            "FROM nvtx_ranges r JOIN strings s ON s.id = r.name_id");
  const int64_t count = std::stoll(rows[0][0]);
  EXPECT_GT(count, 100);
  EXPECT_EQ(std::stoll(rows[0][1]), count - 1);
  EXPECT_EQ(t.ranges->size(), static_cast<size_t>(count));
  EXPECT_EQ(t.meta.captureWindows.size(), 1u);
  EXPECT_EQ(t.meta.captureWindows[0].end, 0);  // still open: the process was killed
}

TEST(AgentCrash, TerminatingSignalsFlushEverythingAndKeepTheirExitStatus) {
  TempDir tmp;
  for (int sig : {SIGTERM, SIGINT, SIGABRT}) {
    const fs::path dir = tmp / ("run" + std::to_string(sig));
    const auto r = recordApp(dir, {"raise", "1000", std::to_string(sig)}, {}, cleanEnv());
    EXPECT_EQ(r.exitCode, 128 + sig) << r.err;
    EXPECT_EQ(rangeCount(dir), 1000) << "signal " << sig;
  }
}

TEST(AgentCrash, SigtermSentToRecordReachesTheCommandWhichFlushes) {
  TempDir tmp;
  const fs::path dir = tmp / "run";
  const std::string script = "export PATH=/usr/bin:/bin; " + shellQuote(BUBBLESCOPE_BIN) +
                             " record -o " + shellQuote(dir.string()) + " -- " +
                             shellQuote(kTestApp) +
                             " hang 500 & p=$!; sleep 1; kill -TERM $p; wait $p; echo code=$?";
  const auto r = runProcess({"/bin/sh", "-c", script}, cleanEnv());
  EXPECT_NE(r.out.find("code=143"), std::string::npos) << r.out << r.err;
  EXPECT_EQ(rangeCount(dir), 500);
}

TEST(AgentOutput, UncreatableOutputDirectoryIsOneWarningAndTheJobGoesOn) {
  TempDir tmp;
  writeFile(tmp / "file", "not a directory");
  const auto r = runProcess({kTestApp, "ranges", "100", "3"}, preloaded(tmp / "file" / "run"));
  EXPECT_EQ(r.exitCode, 3);
  EXPECT_NE(r.out.find("emitted 100"), std::string::npos);
  const auto lines = agentLines(r.err);
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_NE(lines[0].find("cannot create the output directory"), std::string::npos) << lines[0];
}

// Root ignores permission bits; run the command without capabilities instead.
std::vector<std::string> withoutPrivileges(std::vector<std::string> argv) {
  if (geteuid() != 0) return argv;
  argv.insert(argv.begin(), {"/usr/bin/setpriv", "--inh-caps=-all", "--bounding-set=-all", "--"});
  return argv;
}

TEST(AgentOutput, ReadOnlyOutputDirectoryIsOneWarningAndTheJobGoesOn) {
  if (geteuid() == 0 && access("/usr/bin/setpriv", X_OK) != 0) {
    GTEST_SKIP() << "root without setpriv: permissions cannot be enforced";
  }
  TempDir tmp;
  const fs::path ro = tmp / "ro";
  fs::create_directory(ro);
  fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
  // The agent preloaded by hand.
  auto r = runProcess(withoutPrivileges({kTestApp, "ranges", "100", "5"}), preloaded(ro));
  EXPECT_EQ(r.exitCode, 5) << r.err;
  auto lines = agentLines(r.err);
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_NE(lines[0].find("Permission denied"), std::string::npos) << lines[0];
  // Through `record`: it says so once and runs the command without capture.
  r = runProcess(withoutPrivileges({BUBBLESCOPE_BIN, "record", "-o", ro.string(), "--", kTestApp,
                                    "ranges", "100", "5"}),
                 cleanEnv());
  EXPECT_EQ(r.exitCode, 5) << r.err;
  lines = agentLines(r.err);
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_NE(lines[0].find("without capture"), std::string::npos) << lines[0];
  fs::permissions(ro, fs::perms::owner_all);
  EXPECT_TRUE(traceFiles(ro).empty());
}

TEST(AgentOutput, FileSizeLimitMidRunIsOneWarningAndTheTraceKeepsItsBatches) {
  TempDir tmp;
  const fs::path dir = tmp / "run";
  // 8 MiB per file (ulimit -f counts 512-byte blocks in sh): a batch fits, the 24 MB of ranges
  // do not fit the database and its WAL together. SIGXFSZ is left at its
  // default, which would kill the job if the agent let it reach the job.
  const std::string script = "ulimit -f 16384; exec " + shellQuote(kTestApp) + " ranges 400000 7";
  ProcessOptions o = preloaded(dir);
  o.env["BUBBLESCOPE_BUFFER_KB"] = "65536";  // room for every range: the file outgrows the limit
  const auto r = runProcess({"/bin/sh", "-c", script}, o);
  EXPECT_EQ(r.exitCode, 7) << r.err;
  EXPECT_NE(r.out.find("emitted 400000"), std::string::npos);
  const auto lines = agentLines(r.err);
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_NE(lines[0].find("cannot write the trace"), std::string::npos) << lines[0];
  const int64_t kept = rangeCount(dir);
  EXPECT_GT(kept, 0);
  EXPECT_LT(kept, 400000);
}

TEST(AgentOutput, FullFilesystemIsOneWarningAndTheJobGoesOn) {
  if (geteuid() != 0 || access("/usr/bin/unshare", X_OK) != 0) {
    GTEST_SKIP() << "needs root and unshare to mount a small tmpfs";
  }
  TempDir tmp;
  const fs::path mnt = tmp / "mnt";
  const fs::path saved = tmp / "saved";
  fs::create_directories(mnt);
  fs::create_directories(saved);
  // A private mount namespace: the 12 MiB tmpfs (a few batches) disappears with the shell.
  const std::string script =
      "mount -t tmpfs -o size=12m tmpfs " + shellQuote(mnt.string()) + " || exit 99; " +
      "LD_PRELOAD=" + shellQuote(kAgentLibrary) +
      " BUBBLESCOPE_BUFFER_KB=65536 BUBBLESCOPE_OUTPUT_DIR=" + shellQuote((mnt / "run").string()) +
      " " + shellQuote(kTestApp) + " ranges 400000 6; " + "code=$?; cp " +
      shellQuote((mnt / "run").string()) + "/* " + shellQuote(saved.string()) + "/; exit $code";
  const auto r = runProcess({"/usr/bin/unshare", "--mount", "/bin/sh", "-c", script}, cleanEnv());
  if (r.exitCode == 99) GTEST_SKIP() << "cannot mount tmpfs here: " << r.err;
  EXPECT_EQ(r.exitCode, 6) << r.err;
  const auto lines = agentLines(r.err);
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_NE(lines[0].find("full"), std::string::npos) << lines[0];
  const int64_t kept = rangeCount(saved);
  EXPECT_GT(kept, 0);
  EXPECT_LT(kept, 400000);
}

}  // namespace
}  // namespace bubblescope::testing
