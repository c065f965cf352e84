// `bubblescope record --watch` on engine jobs (issue 30): the live lines of `watch` while the job
// records, a slow stage named within two steps of its onset, the traces as a plain `record` leaves
// them, the job's exit code, ranks that appear late, a job that ends before any rank appears or
// hangs, `--dormant` (memory only), and bad input. Each test has a runtime directory of its own.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/agent/agent_test_support.h"
#include "tests/agent/live_engine_job.h"
#include "tests/support/engine_noise.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"

namespace bubblescope::testing {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

size_t countStarting(const std::string& text, const std::string& prefix) {
  size_t n = 0;
  for (const std::string& line : lines(text)) n += line.rfind(prefix, 0) == 0 ? 1 : 0;
  return n;
}

// A directory for the job's control sockets, its run directory and its answer key.
class Job {
 public:
  Job() {
    fs::create_directories(dir_ / "rt");
    fs::permissions(dir_ / "rt", fs::perms::owner_all);
  }
  ProcessOptions env() const { return runtimeDirEnv(dir_ / "rt", std::chrono::seconds(120)); }
  // `bubblescope engine run` of a 4-stage 1F1B pipeline of 2 ms ops, then `extra`.
  std::vector<std::string> engine(const std::string& truth, std::vector<std::string> extra) const {
    extra.insert(extra.begin(), {"--op-ms", "2"});
    return engineRunArgv(dir_ / truth, extra);
  }
  ProcessResult record(std::vector<std::string> options, const std::vector<std::string>& command) {
    options.insert(options.begin(), "record");
    options.push_back("--");
    options.insert(options.end(), command.begin(), command.end());
    return runBubblescope(options, env());
  }
  fs::path operator/(const std::string& name) const { return dir_ / name; }

 private:
  TempDir dir_;
};

// A shell line that runs `argv` (each word quoted).
std::string shellLine(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& a : argv) line += " '" + a + "'";
  return line;
}

// What `analyze` says of a run, figures aside (two runs of a job never time alike): its ranks,
// schedule and step count, and its culprit.
std::string analyzeSummary(const fs::path& run, const ProcessOptions& env) {
  const ProcessResult r = runBubblescope({"analyze", run.string()}, env);
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  static const std::regex figure(R"([0-9]+(\.[0-9]+)?)");
  std::string summary;
  for (const std::string& line : lines(r.out)) {
    if (line.rfind("ranks:", 0) == 0 || line.rfind("schedule ", 0) == 0) summary += line + "\n";
    if (line.rfind("culprit:", 0) == 0) {
      // The culprit's stage stays ("culprit:  stage 2:"); its figures go.
      const size_t named = std::min(line.find(':', 10), line.size());
      summary += line.substr(0, named) + std::regex_replace(line.substr(named), figure, "#") + "\n";
    }
  }
  return summary;
}

// `record OPTIONS -o DIR/NAME-K -- engine ... --truth DIR/NAME-K.json FAULT`, made afresh while the
// machine was too loaded to time the job (liveJobUntilSteady): the last one, where it recorded to,
// and that line ("" if steady).
struct SteadyRecord {
  ProcessResult process;
  fs::path run;
  std::string tooLoaded;
};

SteadyRecord recordLiveUntilSteady(Job& job, const std::vector<std::string>& options,
                                   const std::string& name, const std::vector<std::string>& fault) {
  SteadyRecord r;
  r.tooLoaded = liveJobUntilSteady([&](int attempt) {
    const std::string k = name + "-" + std::to_string(attempt);
    std::vector<std::string> all = options;
    all.insert(all.end(), {"-o", (job / k).string()});
    r.run = job / k;
    r.process = job.record(all, job.engine(k + ".json", fault));
    return r.process.exitCode != 0 ? std::string() : liveJobTooLoaded(job / (k + ".json"));
  });
  return r;
}

TEST(RecordWatch, ASlowStageIsNamedLiveAndTheFilesAnalyseAsAPlainRecord) {
  const int onset = 20;
  Job job;
  const std::vector<std::string> fault = {"--steps", "60", "--slow-stage",
                                          "2:1.5@" + std::to_string(onset)};
  const SteadyRecord w = recordLiveUntilSteady(job, {"--watch"}, "watched", fault);
  const ProcessResult& watched = w.process;
  ASSERT_EQ(watched.exitCode, 0) << watched.out << watched.err;
  if (!w.tooLoaded.empty()) GTEST_SKIP() << w.tooLoaded;
  // Only the watch's lines on stdout; record's own messages stay on stderr.
  EXPECT_EQ(watched.out.find("bubblescope:"), std::string::npos) << watched.out;
  EXPECT_NE(watched.err.find("bubblescope: watching 4 process(es)"), std::string::npos)
      << watched.err;
  EXPECT_NE(watched.err.find("traces in"), std::string::npos) << watched.err;
  static const std::regex started(R"(^step \d+  started: imbalance: stage 2 .*, from step (\d+)$)");
  std::smatch m;
  int from = -1;
  for (const std::string& line : lines(watched.out)) {
    if (std::regex_match(line, m, started)) from = std::stoi(m[1]);
  }
  ASSERT_GE(from, 0) << watched.out;
  EXPECT_LE(std::abs(from - onset), 2) << watched.out;
  EXPECT_GT(countStarting(watched.out, "step "), 20u) << watched.out;
  EXPECT_EQ(lines(watched.out).back().rfind("the job ended", 0), 0u) << watched.out;

  // The same job under a plain record: the files analyse to the same culprit.
  const SteadyRecord plain = recordLiveUntilSteady(job, {}, "plain", fault);
  ASSERT_EQ(plain.process.exitCode, 0) << plain.process.err;
  ASSERT_EQ(traceFiles(w.run).size(), 4u);
  ASSERT_EQ(traceFiles(plain.run).size(), 4u);
  if (!plain.tooLoaded.empty()) GTEST_SKIP() << plain.tooLoaded;
  const std::string a = analyzeSummary(w.run, job.env());
  EXPECT_NE(a.find("culprit:  stage 2: "), std::string::npos) << a;
  EXPECT_EQ(a, analyzeSummary(plain.run, job.env()));
}

TEST(RecordWatch, TheExitCodeIsTheJobsAndItsEndIsOneLine) {
  Job job;
  const std::string run = shellLine(job.engine("t.json", {"--steps", "40"})) + "; exit 3";
  const ProcessResult r = job.record({"--watch", "-o", (job / "run").string()}, {"sh", "-c", run});
  EXPECT_EQ(r.exitCode, 3) << r.out << r.err;
  EXPECT_GT(countStarting(r.out, "step "), 3u) << r.out << r.err;
  EXPECT_EQ(countStarting(r.out, "the job ended"), 1u) << r.out;
  EXPECT_EQ(traceFiles(job / "run").size(), 4u);
}

// A launcher that waits before it starts the ranks: the watch waits for them.
TEST(RecordWatch, RanksThatStartLateAreWatched) {
  Job job;
  const std::string run = "sleep 4; exec" + shellLine(job.engine("t.json", {"--steps", "40"}));
  const ProcessResult r = job.record({"--watch", "-o", (job / "run").string()}, {"sh", "-c", run});
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("bubblescope: watching 4 process(es)"), std::string::npos) << r.err;
  EXPECT_GT(countStarting(r.out, "step "), 5u) << r.out << r.err;
  EXPECT_EQ(countStarting(r.out, "the job ended"), 1u) << r.out;
}

TEST(RecordWatch, AJobThatEndsBeforeAnyRankAppearsIsOneLine) {
  Job job;
  const ProcessResult r =
      job.record({"--watch", "-o", (job / "run").string()}, {"sh", "-c", "sleep 0.5; exit 5"});
  EXPECT_EQ(r.exitCode, 5) << r.out << r.err;
  EXPECT_EQ(r.out, "the job ended before any of its processes could be watched\n") << r.err;
}

TEST(RecordWatch, AJobThatHangsIsSaidOnce) {
  Job job;
  const ProcessResult r =
      job.record({"--watch", "-o", (job / "run").string()},
                 job.engine("t.json", {"--steps", "40", "--hang", "1:3:15", "--timeout", "16"}));
  EXPECT_NE(r.exitCode, 0) << "the engine's own timeout ends a hung job with an error";
  EXPECT_EQ(countStarting(r.out, "no step finished for "), 1u) << r.out << r.err;
  EXPECT_EQ(countStarting(r.out, "the job ended"), 1u) << r.out;
}

TEST(RecordWatch, DormantTheWatchKeepsTheMemoryWindowOnly) {
  Job job;
  const ProcessResult r = job.record({"--watch", "--dormant", "-o", (job / "run").string()},
                                     job.engine("t.json", {"--steps", "40"}));
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_GT(countStarting(r.out, "step "), 5u) << r.out << r.err;
  EXPECT_TRUE(traceFiles(job / "run").empty());
}

TEST(RecordWatch, BadInputIsOneSentenceAndExitTwo) {
  Job job;
  for (const std::vector<std::string>& options :
       {std::vector<std::string>{"--prometheus", (job / "m.prom").string()},
        std::vector<std::string>{"--watch", "--listen", "not-a-port"},
        std::vector<std::string>{"--watch", "--prometheus", (job / "rt").string()},  // a directory
        std::vector<std::string>{"--watch", "--keep", "0"}}) {
    const ProcessResult r = job.record(options, {"true"});
    EXPECT_EQ(r.exitCode, 2) << options.back() << r.out << r.err;
    EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
    EXPECT_EQ(r.err.find("terminate"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace bubblescope::testing
