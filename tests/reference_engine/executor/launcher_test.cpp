// The launcher on its own, with shell scripts as stages: environment and channels reach the right
// process, and every way a run can end leaves no stage behind and names the cause in one line.
#include "reference_engine/executor/launcher.h"

#include <gtest/gtest.h>

#include <chrono>
#include <regex>

#include "tests/support/temp_dir.h"

namespace bubblescope::engine {
namespace {

using Clock = std::chrono::steady_clock;

StageLaunch shellStages(std::vector<std::string> scripts, double timeout = 30) {
  StageLaunch l;
  l.stages = static_cast<int>(scripts.size());
  l.timeoutSeconds = timeout;
  l.argv = [scripts](int s, const std::vector<std::pair<int, int>>&) {
    return std::vector<std::string>{"/bin/sh", "-c", scripts[static_cast<size_t>(s)]};
  };
  l.environment = [](int s) { return std::vector<std::string>{"RANK=" + std::to_string(s)}; };
  return l;
}

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

TEST(Launcher, EveryStageGetsItsOwnEnvironment) {
  auto outcome = launchStages(shellStages({"test \"$RANK\" = 0", "test \"$RANK\" = 1"}));
  EXPECT_TRUE(outcome.ok) << outcome.failure;
  EXPECT_EQ(outcome.pids.size(), 2u);
}

TEST(Launcher, ChannelEndsAreInheritedOnlyByTheirStage) {
  // Each stage writes the socket its own end is and every socket it holds; a stage holding its
  // peer's end as well would never see EOF when the peer dies.
  testing::TempDir dir;
  StageLaunch l = shellStages({"", ""});
  l.channelPairs = {{0, 1}};
  l.argv = [&dir](int s, const std::vector<std::pair<int, int>>& channels) {
    EXPECT_EQ(channels.size(), 1u);
    EXPECT_EQ(channels[0].first, 1 - s);
    const std::string out = (dir / ("stage" + std::to_string(s))).string();
    return std::vector<std::string>{
        "/bin/sh", "-c",
        "readlink /proc/$$/fd/" + std::to_string(channels[0].second) + " > " + out +
            ".own; for f in /proc/$$/fd/*; do readlink $f; done > " + out + ".all; true"};
  };
  auto outcome = launchStages(l);
  ASSERT_TRUE(outcome.ok) << outcome.failure;
  const std::string own0 = testing::readFile(dir / "stage0.own");
  const std::string own1 = testing::readFile(dir / "stage1.own");
  EXPECT_EQ(own0.rfind("socket:", 0), 0u) << own0;
  EXPECT_EQ(own1.rfind("socket:", 0), 0u) << own1;
  EXPECT_NE(own0, own1);
  EXPECT_EQ(testing::readFile(dir / "stage0.all").find(own1), std::string::npos);
  EXPECT_EQ(testing::readFile(dir / "stage1.all").find(own0), std::string::npos);
}

TEST(Launcher, FailingStageIsNamedAndTheOthersAreStopped) {
  const auto start = Clock::now();
  auto outcome =
      launchStages(shellStages({"exec sleep 30", "sleep 0.05; exit 5", "exec sleep 30"}));
  EXPECT_FALSE(outcome.ok);
  EXPECT_LT(secondsSince(start), 5.0);
  const std::string expected = "stage 1 (pid " + std::to_string(outcome.pids.at(1)) +
                               ") exited with status 5; stopped the other stages";
  EXPECT_EQ(outcome.failure, expected);
}

TEST(Launcher, StageThatDiedOfItsOwnCauseIsBlamedOverOneThatLostItsPeer) {
  // Stage 1 exits as a stage does when its neighbour closed; stage 0, the real cause, is slower
  // to die (it ignores SIGTERM, then aborts).
  auto outcome =
      launchStages(shellStages({"trap '' TERM; sleep 0.3; kill -ABRT $$", "sleep 0.05; exit 4"}));
  EXPECT_FALSE(outcome.ok);
  EXPECT_NE(outcome.failure.find("stage 0 (pid"), std::string::npos) << outcome.failure;
  EXPECT_NE(outcome.failure.find("signal 6 (Aborted)"), std::string::npos) << outcome.failure;
}

TEST(Launcher, WatchdogStopsAStuckRun) {
  const auto start = Clock::now();
  auto outcome = launchStages(shellStages({"exec sleep 30", "exec sleep 30"}, 0.3));
  EXPECT_FALSE(outcome.ok);
  EXPECT_LT(secondsSince(start), 3.0);
  EXPECT_EQ(outcome.failure,
            "timed out after 0.3 s with stage(s) 0, 1 still running; stopped the stages");
}

TEST(Launcher, TerminatingTheLauncherStopsEveryStage) {
  const auto start = Clock::now();
  auto outcome = launchStages(shellStages({"kill -TERM $PPID; exec sleep 30", "exec sleep 30"}));
  EXPECT_FALSE(outcome.ok);
  EXPECT_LT(secondsSince(start), 5.0);
  EXPECT_EQ(outcome.failure, "interrupted by SIGTERM; stopped the stages");
}

TEST(Launcher, ProgramThatCannotStartIsReported) {
  StageLaunch l = shellStages({""});
  l.argv = [](int, const std::vector<std::pair<int, int>>&) {
    return std::vector<std::string>{"/nonexistent/bubblescope", "engine", "worker"};
  };
  auto outcome = launchStages(l);
  EXPECT_FALSE(outcome.ok);
  EXPECT_TRUE(std::regex_match(
      outcome.failure,
      std::regex(
          R"(stage 0 \(pid \d+\) exited with status 127 \(the worker program could not be started\))")))
      << outcome.failure;
}

}  // namespace
}  // namespace bubblescope::engine
