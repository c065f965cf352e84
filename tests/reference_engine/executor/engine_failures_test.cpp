// When a run goes wrong the engine ends fast, names the cause in one line, and leaves no stage
// process behind; bad input is refused before anything starts, with exit code 2 and one line.
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <thread>

#include "tests/reference_engine/executor/engine_run.h"

namespace bubblescope::engine {
namespace {

using namespace std::chrono_literals;
using test::json;

int lineCount(const std::string& s) {
  return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

// Nothing of the run is left: no stage process, no truth, no working files.
void expectNothingLeft(const testing::TempDir& dir) {
  // Stages were reaped by the launcher before it exited; give exiting ones a moment.
  for (int i = 0; i < 20 && !test::processesMentioning(dir.path().string()).empty(); ++i) {
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_TRUE(test::processesMentioning(dir.path().string()).empty());
  EXPECT_FALSE(std::filesystem::exists(dir / "truth.json"));
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    ADD_FAILURE() << "left behind: " << e.path();
  }
}

struct CrashCase {
  const char* crash;
  int stage;
};

class CrashedStage : public ::testing::TestWithParam<CrashCase> {};

TEST_P(CrashedStage, StopsTheRunFastAndIsNamed) {
  testing::TempDir dir;
  auto run = test::runEngine(dir, {"--schedule", "1f1b", "-p", "4", "-m", "4", "--steps", "3",
                                   "--op-ms", "1", "--crash", GetParam().crash});
  EXPECT_EQ(run.process.exitCode, 3);
  EXPECT_LT(run.seconds, 10.0);
  const std::regex line(
      "bubblescope: engine: stage " + std::to_string(GetParam().stage) +
      R"( \(pid \d+\) was killed by signal 6 \(Aborted\); stopped the other stages\n)");
  EXPECT_TRUE(std::regex_match(run.process.err, line)) << run.process.err;
  expectNothingLeft(dir);
}

INSTANTIATE_TEST_SUITE_P(Engine, CrashedStage,
                         ::testing::Values(CrashCase{"2:1", 2},     // mid-pipeline
                                           CrashCase{"0:0", 0},     // the others wait for it
                                           CrashCase{"3:2:1", 3}),  // last stage, second step
                         [](const auto& param) {
                           return "stage" + std::to_string(param.param.stage) + "_case" +
                                  std::to_string(param.index);
                         });

TEST(EngineFailures, WatchdogEndsAStuckRun) {
  testing::TempDir dir;
  auto run = test::runEngine(
      dir, {"--schedule", "1f1b", "-p", "3", "-m", "3", "--stall", "0:0:60000", "--timeout", "1"});
  EXPECT_EQ(run.process.exitCode, 3);
  EXPECT_LT(run.seconds, 6.0);
  EXPECT_EQ(run.process.err,
            "bubblescope: engine: timed out after 1 s with stage(s) 0, 1, 2 still running; "
            "stopped the stages\n");
  expectNothingLeft(dir);
}

// Starts the engine without waiting for it; stderr goes to a file.
pid_t startEngine(const testing::TempDir& dir, const std::filesystem::path& errFile) {
  const std::string truth = (dir / "truth.json").string();
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = open(errFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 2);
    execl(BUBBLESCOPE_BIN, BUBBLESCOPE_BIN, "engine", "run", "-q", "--schedule", "1f1b", "-p", "4",
          "-m", "4", "--stall", "0:0:60000", "--truth", truth.c_str(), nullptr);
    _exit(127);
  }
  return pid;
}

// Waits until every stage process runs the worker (before exec, a forked child still shows the
// launcher's command line).
void waitForStages(const testing::TempDir& dir, size_t stages) {
  auto workers = [&] {
    size_t n = 0;
    for (int pid : test::processesMentioning(dir.path().string())) {
      n += testing::readFile("/proc/" + std::to_string(pid) + "/cmdline").find("worker") !=
           std::string::npos;
    }
    return n;
  };
  for (int i = 0; i < 300 && workers() < stages; ++i) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(workers(), stages);
}

int waitWithin(pid_t pid, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      ADD_FAILURE() << "the engine did not end in time";
      return -1;
    }
    std::this_thread::sleep_for(10ms);
  }
  return status;
}

TEST(EngineFailures, TerminatingTheEngineStopsEveryStage) {
  testing::TempDir dir;
  testing::TempDir logs;
  const pid_t pid = startEngine(dir, logs / "err");
  waitForStages(dir, 4);
  kill(pid, SIGTERM);
  const int status = waitWithin(pid, 10s);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);
  EXPECT_EQ(testing::readFile(logs / "err"),
            "bubblescope: engine: interrupted by SIGTERM; stopped the stages\n");
  expectNothingLeft(dir);
}

TEST(EngineFailures, KilledEngineTakesItsStagesWithIt) {
  testing::TempDir dir;
  testing::TempDir logs;
  const pid_t pid = startEngine(dir, logs / "err");
  waitForStages(dir, 4);
  kill(pid, SIGKILL);
  waitWithin(pid, 10s);
  for (int i = 0; i < 100 && !test::processesMentioning(dir.path().string()).empty(); ++i) {
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_TRUE(test::processesMentioning(dir.path().string()).empty());
}

struct BadInput {
  std::vector<std::string> args;
  const char* mentions;
};

void PrintTo(const BadInput& bad, std::ostream* os) {
  for (const auto& a : bad.args) *os << a << " ";
}

class InvalidInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(InvalidInput, ExitsTwoWithOneLineNamingTheProblem) {
  testing::TempDir dir;
  std::vector<std::string> args = {"engine", "run"};
  std::vector<std::string> given = GetParam().args;
  // Defaults for what the case does not set.
  auto has = [&](const char* flag) {
    return std::find(given.begin(), given.end(), flag) != given.end();
  };
  if (!has("--truth")) given.insert(given.end(), {"--truth", (dir / "truth.json").string()});
  if (!has("--schedule")) given.insert(given.end(), {"--schedule", "1f1b"});
  if (!has("-p")) given.insert(given.end(), {"-p", "4"});
  if (!has("-m")) given.insert(given.end(), {"-m", "8"});
  args.insert(args.end(), given.begin(), given.end());
  auto r = testing::runBubblescope(args);
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_EQ(lineCount(r.err), 1) << r.err;
  EXPECT_EQ(r.err.rfind("bubblescope: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(GetParam().mentions), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  expectNothingLeft(dir);
}

INSTANTIATE_TEST_SUITE_P(
    Engine, InvalidInput,
    ::testing::Values(
        BadInput{{"-p", "0"}, "--stages: must be a whole number from 1 to 256 (got 0)"},
        BadInput{{"-m", "0"}, "--microbatches: must be a whole number from 1"},
        BadInput{{"--schedule", "pipedream"}, "unknown schedule 'pipedream'"},
        BadInput{{"--slow-stage", "2"}, "--slow-stage '2': expected STAGE:FACTOR"},
        BadInput{{"--stall", "a:b:c"}, "--stall 'a:b:c'"},
        BadInput{{"--slow-stage", "4:2"}, "stage 4 is out of range (p=4"},
        BadInput{{"--slow-stage", "1:0"}, "factor must be above 0"},
        BadInput{{"--host-stall", "1:9:5"}, "microbatch 9 is out of range"},
        BadInput{{"--comm-delay", "1"}, "--comm-delay '1'"},
        BadInput{{"--slow-stage", "1:2@2-1"},
                 "--slow-stage '1:2@2-1': the step range 2-1 is empty"},
        BadInput{{"--steps", "8", "--slow-stage", "1:2@4-9"},
                 "end step 9 is beyond the run (steps=8"},
        BadInput{{"--steps", "8", "--comm-delay", "1:2@1-5", "--comm-delay", "1:3@4"},
                 "--comm-delay '1:3@4': stage 1 is given twice for the same steps"},
        BadInput{{"--jitter", "120"}, "--jitter: must be a number from 0 to 100 (got 120)"},
        BadInput{{"--jitter", "100"}, "--jitter 100"},
        BadInput{{"--compute", "gpu"}, "unknown compute mode 'gpu'"},
        BadInput{{"--op-ms", "1,2"}, "--op-ms '1,2'"},
        BadInput{{"--steps", "0"}, "--steps: must be a whole number from 1"},
        BadInput{{"--v", "3"}, "--v 3 does not apply to 1f1b"},
        BadInput{{"--timeout", "0"}, "--timeout"},
        BadInput{{"--truth", "/nonexistent/dir/truth.json"}, "/nonexistent/dir"},
        BadInput{{"--truth", "/tmp"}, "/tmp: is a directory, not a file to write"},
        BadInput{{"-p", "x"}, "bubblescope:"}),
    [](const auto& param) { return "case" + std::to_string(param.index); });

// Without a GPU driver (this development machine) the cuda compute mode is refused before
// anything starts, in one sentence that says why; with one it runs (scripts/gpu-validation.sh).
TEST(EngineFailures, CudaComputeWithoutADriverIsOneSentenceAndExitCode2) {
  if (void* driver = dlopen("libcuda.so.1", RTLD_LAZY)) {
    dlclose(driver);
    GTEST_SKIP() << "a CUDA driver is installed here";
  }
  testing::TempDir dir;
  auto r =
      testing::runBubblescope({"engine", "run", "--schedule", "1f1b", "--compute", "cuda", "-p",
                               "2", "-m", "2", "--truth", (dir / "truth.json").string()});
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_EQ(lineCount(r.err), 1) << r.err;
  EXPECT_TRUE(r.err.find("bubblescope: the cuda compute mode needs a GPU: no CUDA driver") == 0 ||
              r.err.find("bubblescope: the cuda compute mode is not in this build") == 0)
      << r.err;
  expectNothingLeft(dir);
}

}  // namespace
}  // namespace bubblescope::engine
