// The agent's trace files themselves (issue 28, rules 6 and 10): a rank name is claimed without a
// race, a file is whole or absent, a job that closes its descriptors does not end its recording,
// and files get the mode the umask gives unless the run asks for private ones.
#include <sys/resource.h>
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "tests/agent/agent_test_support.h"
#include "tests/support/temp_dir.h"
#include "traces/sqlite/run_reader.h"
#include "traces/sqlite/trace_reader.h"

namespace bubblescope::testing {
namespace {

namespace fs = std::filesystem;

std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool startsWith(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

// The rank's name taken at the moment of the create, as a racing process would take it: a dangling
// symbolic link is not there for exists() and is there for O_EXCL.
TEST(AgentTraceFiles, RankNameTakenAtTheCreateFallsBackToThePidName) {
  TempDir tmp;
  const fs::path dir = tmp / "run";
  fs::create_directories(dir);
  fs::create_symlink(tmp / "nowhere", dir / "rank-00000.sqlite");
  const auto r = recordApp(dir, {"ranges", "5"}, {}, cleanEnv({{"RANK", "0"}}));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  fs::path written;
  for (const fs::path& f : traceFiles(dir)) {
    if (startsWith(f.filename().string(), "rank-0.pid-")) written = f;
  }
  ASSERT_FALSE(written.empty()) << r.err;
  const traces::RankTrace t = traces::readRankTrace(written);
  EXPECT_EQ(t.ranges->size(), 5u);
  EXPECT_EQ(t.meta.rank, -1);
  EXPECT_EQ(t.meta.extra.at("claimed_rank"), "0");
  const auto lines = agentLines(r.err);
  EXPECT_EQ(
      std::count_if(lines.begin(), lines.end(),
                    [](const std::string& l) { return l.find("exists") != std::string::npos; }),
      1)
      << r.err;
  EXPECT_EQ(r.err.find("File exists"), std::string::npos) << r.err;
}

// Eight processes of one rank at once (an elastic restart overlapping the old workers): every one
// is recorded, one under the rank's name and the others under their pid's. The race itself is
// too narrow to lose on demand; the test above takes the name at the instant that matters.
TEST(AgentTraceFiles, ProcessesRacingForOneRankAreEachRecorded) {
  TempDir tmp;
  const fs::path dir = tmp / "run";
  fs::create_directories(dir);
  const int processes = 8;
  const std::string script =
      "for i in 1 2 3 4 5 6 7 8; do " + shellQuote(kTestApp) + " ranges 5 >/dev/null & done; wait";
  ProcessOptions o = cleanEnv(
      {{"LD_PRELOAD", kAgentLibrary}, {"BUBBLESCOPE_OUTPUT_DIR", dir.string()}, {"RANK", "0"}});
  const auto r = runProcess({"/bin/sh", "-c", script}, o);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto files = traceFiles(dir);
  ASSERT_EQ(files.size(), size_t(processes)) << r.err;
  int ranked = 0;
  for (const fs::path& f : files) {
    const traces::RankTrace t = traces::readRankTrace(f);
    EXPECT_EQ(t.ranges->size(), 5u) << f;
    if (f.filename() == "rank-00000.sqlite") {
      ++ranked;
      EXPECT_EQ(t.meta.rank, 0);
    } else {
      EXPECT_TRUE(startsWith(f.filename().string(), "rank-0.pid-")) << f;
      EXPECT_EQ(t.meta.rank, -1) << f;
    }
  }
  EXPECT_EQ(ranked, 1);
  EXPECT_EQ(r.err.find("File exists"), std::string::npos) << r.err;
}

// 40 KiB left for the file: the agent cannot make its trace, says so once, and leaves nothing that
// `record` would count or `analyze` would refuse.
TEST(AgentTraceFiles, NoRoomToMakeTheTraceLeavesNoFileAndNoCount) {
  TempDir tmp;
  const fs::path dir = tmp / "run";
  const auto r = runProcess(
      underFileSizeLimit(
          bubblescopeArgv({"record", "-o", dir.string(), "--", kTestApp, "ranges", "10", "3"}), 40),
      cleanEnv({{"RANK", "4"}}));
  EXPECT_EQ(r.exitCode, 3) << r.err;
  EXPECT_NE(r.out.find("emitted 10"), std::string::npos);
  std::vector<std::string> left;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) left.push_back(e.path().filename());
  EXPECT_TRUE(left.empty()) << ::testing::PrintToString(left);
  EXPECT_EQ(r.err.find("1 rank"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nothing was recorded"), std::string::npos) << r.err;
  const auto lines = agentLines(r.err);
  EXPECT_EQ(std::count_if(lines.begin(), lines.end(),
                          [](const std::string& l) {
                            return l.find("rank-00004.sqlite") != std::string::npos;
                          }),
            1)
      << r.err;
}

// A file without a meta table made during the run (a process killed while making its trace) is
// named once and not counted as a rank.
TEST(AgentTraceFiles, RecordDoesNotCountAFileWithoutMeta) {
  TempDir tmp;
  const fs::path dir = tmp / "run";
  fs::create_directories(dir);
  const std::string script = ": > " + shellQuote((dir / "rank-00009.sqlite").string()) + "; exec " +
                             shellQuote(kTestApp) + " ranges 5";
  const auto r =
      runBubblescope({"record", "-o", dir.string(), "--", "/bin/sh", "-c", script}, cleanEnv());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("traces in " + dir.string() + ": 1 process (no launcher rank)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("rank-00009.sqlite holds no trace"), std::string::npos) << r.err;
}

std::vector<std::string> rangeNames(const traces::RankTrace& t) {
  std::vector<std::string> names;
  for (size_t i = 0; i < t.ranges->size(); ++i) {
    names.emplace_back(t.strings.at(t.ranges->name[i]));
  }
  std::sort(names.begin(), names.end());
  return names;
}

// close_range(3, ~0U, 0) in the middle of a run: the job keeps its exit code and its own files
// (opened on the numbers the agent's descriptors had) untouched, the agent says so in one line,
// the file closed under it keeps what it committed, and what follows goes to the next part.
TEST(AgentTraceFiles, JobClosingEveryDescriptorIsRecordedOnInANextPart) {
  TempDir tmp;
  const fs::path dir = tmp / "run";
  const fs::path own = tmp / "own";
  fs::create_directories(own);
  const auto began = std::chrono::steady_clock::now();
  const auto r = recordApp(dir, {"closefds", "20", own.string()}, {"--cuda", "off"},
                           cleanEnv({{"RANK", "3"}}));
  const auto took = std::chrono::steady_clock::now() - began;
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("emitted 40"), std::string::npos);
  // Before, SQLite's lock retries on the closed descriptors held the exit for 10 s.
  EXPECT_LT(took, std::chrono::seconds(5));
  // The agent's descriptors sat far above the numbers the job's files took after close_range
  // (3 on): no moment between the agent's check and its write can give it one of the job's
  // files (at load 8 one got a WAL frame that way). Half the soft limit, at most 1024.
  rlimit limit{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &limit), 0);
  const auto floor = static_cast<long>(std::min<rlim_t>(limit.rlim_cur / 2, 1024));
  int traceFds = 0;
  for (size_t at = r.out.find("trace fd "); at != std::string::npos;
       at = r.out.find("trace fd ", at + 1)) {
    ++traceFds;
    EXPECT_GE(std::stol(r.out.substr(at + 9)), floor) << r.out;
  }
  EXPECT_GE(traceFds, 1) << r.out;
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(readFile(own / ("own-" + std::to_string(i))), "own file " + std::to_string(i) + "\n");
  }
  std::vector<std::string> warnings;
  for (const std::string& l : agentLines(r.err)) {
    if (l.find("traces in") == std::string::npos) warnings.push_back(l);
  }
  ASSERT_EQ(warnings.size(), 1u) << r.err;
  EXPECT_NE(warnings[0].find("closed the descriptors of rank-00003.sqlite"), std::string::npos)
      << warnings[0];

  const traces::RankTrace before = traces::readRankTrace(dir / "rank-00003.sqlite");
  EXPECT_EQ(before.meta.rank, 3);
  ASSERT_EQ(before.ranges->size(), 20u);
  EXPECT_EQ(rangeNames(before).front(), "before 0");
  fs::path next;
  for (const fs::path& f : traceFiles(dir)) {
    if (f.filename().string().find(".part-2.sqlite") != std::string::npos) next = f;
  }
  ASSERT_FALSE(next.empty()) << r.err;
  EXPECT_TRUE(startsWith(next.filename().string(), "rank-3.pid-")) << next;
  EXPECT_NE(warnings[0].find(next.filename().string()), std::string::npos) << warnings[0];
  const traces::RankTrace after = traces::readRankTrace(next);
  EXPECT_EQ(after.meta.rank, -1);
  EXPECT_EQ(after.meta.extra.at("claimed_rank"), "3");
  EXPECT_EQ(after.meta.extra.at("continues"), "rank-00003.sqlite");
  EXPECT_EQ(after.meta.dropped.at("unwritten"), 0u);  // the writer saw it before writing
  ASSERT_EQ(after.ranges->size(), 20u);
  EXPECT_EQ(rangeNames(after).front(), "after 0");
  EXPECT_EQ(traces::readRun(dir).ranks.size(), 2u);
  EXPECT_NE(r.err.find("traces in " + dir.string() + ": 1 rank in 2 files"), std::string::npos)
      << r.err;
}

mode_t modeOf(const fs::path& file) {
  struct stat st {};
  EXPECT_EQ(::stat(file.c_str(), &st), 0) << file;
  return st.st_mode & 0777;
}

// `record` under umask 022: the teammate who analyses a shared run directory can read it.
// --private: only the owner, and the directory record made is 0700.
TEST(AgentTraceFiles, TracesFollowTheUmaskUnlessPrivate) {
  TempDir tmp;
  for (const bool ownerOnly : {false, true}) {
    const fs::path dir = tmp / (ownerOnly ? "private" : "shared");
    std::string command = "umask 022 && exec " + shellQuote(BUBBLESCOPE_BIN) + " record -o " +
                          shellQuote(dir.string()) + (ownerOnly ? " --private" : "") + " -- " +
                          shellQuote(kTestApp) + " ranges 5";
    const auto r = runProcess({"/bin/sh", "-c", command}, cleanEnv({{"RANK", "0"}}));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(modeOf(dir / "rank-00000.sqlite"), ownerOnly ? 0600u : 0644u);
    EXPECT_EQ(modeOf(dir), ownerOnly ? 0700u : 0755u);
    EXPECT_EQ(traces::readRankTrace(dir / "rank-00000.sqlite").ranges->size(), 5u);
  }
}

// The agent by hand: BUBBLESCOPE_PRIVATE=1 makes the files 0600 whatever the umask, the -wal and
// -shm a SIGTERM leaves alike.
TEST(AgentTraceFiles, PrivateSettingMakesEveryFileOwnerOnly) {
  TempDir tmp;
  const fs::path dir = tmp / "run";
  const std::string command = "umask 0 && exec " + shellQuote(kTestApp) + " raise 5 15";
  const auto r =
      runProcess({"/bin/sh", "-c", command}, cleanEnv({{"LD_PRELOAD", kAgentLibrary},
                                                       {"BUBBLESCOPE_OUTPUT_DIR", dir.string()},
                                                       {"BUBBLESCOPE_PRIVATE", "1"},
                                                       {"RANK", "1"}}));
  EXPECT_EQ(r.exitCode, 128 + 15) << r.err;
  for (const char* suffix : {"", "-wal", "-shm"}) {
    EXPECT_EQ(modeOf(dir / (std::string("rank-00001.sqlite") + suffix)), 0600u) << suffix;
  }
}

}  // namespace
}  // namespace bubblescope::testing
