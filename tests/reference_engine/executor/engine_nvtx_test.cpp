// The NVTX ranges the engine emits, as truth.json lists them: exactly the bubblescope convention,
// the expected count of each name, on the thread that would emit it in a framework, nested in
// their step. A profiler test compares its capture against this list.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>

#include "tests/reference_engine/executor/engine_run.h"

namespace bubblescope::engine {
namespace {

using test::json;

constexpr int kP = 4, kM = 4, kSteps = 2;

class NvtxRanges : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir;
    run_ = new test::EngineRun(test::runEngine(
        *dir_, {"--schedule", "1f1b", "-p", std::to_string(kP), "-m", std::to_string(kM), "--steps",
                std::to_string(kSteps), "--op-ms", "0.3", "--host-stall", "1:2:1"}));
  }
  static void TearDownTestSuite() {
    delete run_;
    delete dir_;
  }
  const json& stage(int s) { return run_->truth["stages"][static_cast<size_t>(s)]; }

  static testing::TempDir* dir_;
  static test::EngineRun* run_;
};

testing::TempDir* NvtxRanges::dir_ = nullptr;
test::EngineRun* NvtxRanges::run_ = nullptr;

TEST_F(NvtxRanges, OneRangePerOpTransferAndPhaseWithConventionalNames) {
  ASSERT_EQ(run_->process.exitCode, 0) << run_->process.err;
  for (int s = 0; s < kP; ++s) {
    const json& st = stage(s);
    std::map<std::string, int> expected;
    for (int step = 0; step < kSteps; ++step) expected["step " + std::to_string(step)] = 1;
    expected["grad_sync"] = kSteps;
    expected["optimizer"] = kSteps;
    if (s == 1) expected["dataloader"] = kSteps;
    for (int mb = 0; mb < kM; ++mb) {
      const std::string k = std::to_string(mb);
      expected["F mb=" + k] = kSteps;
      expected["BW mb=" + k] = kSteps;
      if (s > 0) {
        expected["RECV F mb=" + k + " from=" + std::to_string(s - 1)] = kSteps;
        expected["SEND B mb=" + k + " to=" + std::to_string(s - 1)] = kSteps;
      }
      if (s + 1 < kP) {
        expected["SEND F mb=" + k + " to=" + std::to_string(s + 1)] = kSteps;
        expected["RECV B mb=" + k + " from=" + std::to_string(s + 1)] = kSteps;
      }
    }
    std::map<std::string, int> actual;
    for (const json& r : st["nvtx"]) ++actual[r["name"].get<std::string>()];
    EXPECT_EQ(actual, expected) << "stage " << s;
  }
}

TEST_F(NvtxRanges, OpsAndReceivesAreOnTheMainThreadSendsOnTheLinksThread) {
  ASSERT_EQ(run_->process.exitCode, 0) << run_->process.err;
  for (int s = 0; s < kP; ++s) {
    const json& st = stage(s);
    const int mainTid = st["pid"];
    std::map<int, std::string> threadNames;
    for (const json& t : st["threads"]) threadNames[t["tid"]] = t["name"];
    EXPECT_EQ(threadNames[mainTid], "stage " + std::to_string(s));
    const std::regex send(R"(SEND [FB] mb=\d+ to=(\d+))");
    for (const json& r : st["nvtx"]) {
      const std::string name = r["name"];
      std::smatch m;
      if (std::regex_match(name, m, send)) {
        EXPECT_EQ(threadNames[r["tid"]], "stage " + std::to_string(s) + " send→" + m[1].str())
            << name;
      } else {
        EXPECT_EQ(r["tid"], mainTid) << name;
      }
    }
  }
}

TEST_F(NvtxRanges, MainThreadRangesNestInsideTheirStep) {
  ASSERT_EQ(run_->process.exitCode, 0) << run_->process.err;
  for (int s = 0; s < kP; ++s) {
    const json& st = stage(s);
    for (const json& r : st["nvtx"]) {
      const std::string name = r["name"];
      if (name.rfind("step ", 0) == 0 || r["tid"] != st["pid"]) continue;
      bool inside = false;
      for (const json& step : st["steps"]) {
        inside |= step["start_ns"] <= r["start_ns"] && r["end_ns"] <= step["end_ns"];
      }
      EXPECT_TRUE(inside) << name;
    }
  }
}

TEST_F(NvtxRanges, OpRecordsAreTheRangesTimes) {
  ASSERT_EQ(run_->process.exitCode, 0) << run_->process.err;
  const json& st = stage(2);
  for (const json& op : st["ops"]) {
    const std::string name =
        op["kind"].get<std::string>() + " mb=" + std::to_string(op["mb"].get<int>());
    int matches = 0;
    for (const json& r : st["nvtx"]) {
      matches +=
          r["name"] == name && r["start_ns"] == op["start_ns"] && r["end_ns"] == op["end_ns"];
    }
    EXPECT_EQ(matches, 1) << op.dump();
  }
}

TEST_F(NvtxRanges, EachStageSeesTheLauncherEnvironmentOfItsRank) {
  ASSERT_EQ(run_->process.exitCode, 0) << run_->process.err;
  for (int s = 0; s < kP; ++s) {
    const json& env = stage(s)["environment"];
    const std::string rank = std::to_string(s), size = std::to_string(kP);
    EXPECT_EQ(env["RANK"], rank);
    EXPECT_EQ(env["LOCAL_RANK"], rank);
    EXPECT_EQ(env["WORLD_SIZE"], size);
    EXPECT_EQ(env["BUBBLESCOPE_PP_RANK"], rank);
    EXPECT_EQ(env["BUBBLESCOPE_PP_SIZE"], size);
    EXPECT_EQ(env["BUBBLESCOPE_DP_SIZE"], "1");
    EXPECT_EQ(env["BUBBLESCOPE_DP_RANK"], "0");
  }
}

TEST_F(NvtxRanges, EveryStageIsItsOwnProcess) {
  ASSERT_EQ(run_->process.exitCode, 0) << run_->process.err;
  std::set<int> pids;
  for (int s = 0; s < kP; ++s) pids.insert(stage(s)["pid"].get<int>());
  EXPECT_EQ(pids.size(), static_cast<size_t>(kP));
}

TEST(NvtxRangesOfSplitSchedules, ZeroBubbleEmitsSeparateInputAndWeightGradients) {
  testing::TempDir dir;
  auto run = test::runEngine(
      dir, {"--schedule", "zb-h1", "-p", "2", "-m", "4", "--steps", "1", "--op-ms", "0.2"});
  ASSERT_EQ(run.process.exitCode, 0) << run.process.err;
  for (const json& st : run.truth["stages"]) {
    for (int mb = 0; mb < 4; ++mb) {
      EXPECT_EQ(test::rangeCount(st, "B mb=" + std::to_string(mb)), 1);
      EXPECT_EQ(test::rangeCount(st, "W mb=" + std::to_string(mb)), 1);
      EXPECT_EQ(test::rangeCount(st, "BW mb=" + std::to_string(mb)), 0);
    }
  }
}

TEST(NvtxRangesOfSplitSchedules, InterleavedNamesChunksAndCrossesTheRingEdge) {
  testing::TempDir dir;
  auto run = test::runEngine(dir, {"--schedule", "interleaved", "-p", "2", "-m", "4", "--v", "2",
                                   "--steps", "1", "--op-ms", "0.2"});
  ASSERT_EQ(run.process.exitCode, 0) << run.process.err;
  const json& first = run.truth["stages"][0];
  for (int mb = 0; mb < 4; ++mb) {
    const std::string k = std::to_string(mb);
    EXPECT_EQ(test::rangeCount(first, "F mb=" + k + " ch=1"), 1);
    // chunk 1 of stage 0 follows chunk 0 of the last stage: the ring edge
    EXPECT_EQ(test::rangeCount(first, "RECV F mb=" + k + " ch=1 from=1"), 1);
    EXPECT_EQ(test::rangeCount(run.truth["stages"][1], "SEND F mb=" + k + " to=0"), 1);
  }
}

}  // namespace
}  // namespace bubblescope::engine
