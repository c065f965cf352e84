// The engine-noise measure on a hand-made truth whose answer is worked out below: two stages,
// two forwards a step, steps 0-3 (step 0 warms up and is not measured). The machine added 1 ms to
// one transfer in step 2 (received by stage 1) and 2 ms to one op of stage 0 in step 3; every
// other transfer takes the link's 0.1 ms or arrives before its receive is posted.
#include "tests/support/engine_noise.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/temp_dir.h"

namespace bubblescope::testing {
namespace {

using nlohmann::json;

constexpr long long kMs = 1'000'000;
constexpr long long kUs = 1'000;

long long base(int step) {
  return step * 100 * kMs;
}

json interval(int step, long long from, long long to) {
  return {{"step", step}, {"start_ns", base(step) + from}, {"end_ns", base(step) + to}};
}

json op(int step, int mb, long long from, long long to) {
  json o = interval(step, from, to);
  o["kind"] = "F";
  o["mb"] = mb;
  o["chunk"] = 0;
  return o;
}

json transfer(int step, int mb, int peer, long long from, long long to) {
  json x = op(step, mb, from, to);
  x["peer"] = peer;
  return x;
}

// Times in microseconds from the step's start.
json truth() {
  json s0 = {{"stage", 0},
             {"ops", json::array()},
             {"sends", json::array()},
             {"recvs", json::array()},
             {"steps", json::array()}};
  json s1 = s0;
  s1["stage"] = 1;
  for (int step = 0; step <= 3; ++step) {
    // Stage 0: F0 0-4 ms, F1 4-8 ms (step 3: 4-10 ms, 2 ms over), each sent as it ends.
    const long long f1End = step == 3 ? 10'000 : 8'000;
    s0["ops"].push_back(op(step, 0, 0, 4'000 * kUs));
    s0["ops"].push_back(op(step, 1, 4'000 * kUs, f1End * kUs));
    s0["sends"].push_back(transfer(step, 0, 1, 4'000 * kUs, 4'100 * kUs));
    s0["sends"].push_back(transfer(step, 1, 1, f1End * kUs, (f1End + 100) * kUs));
    s0["steps"].push_back(interval(step, 0, f1End * kUs));
    // Stage 1: receives F0 posted at the step's start, 0.1 ms after the send began (step 2:
    // 1.1 ms; step 0: 50 ms, not measured); F1's receive posted as its F0 ends.
    const long long arrive0 = step == 2 ? 5'100 : step == 0 ? 54'000 : 4'100;
    const long long f0End = arrive0 + 4'000;
    // F1 arrives 0.1 ms after its send began, or when its receive is posted if later (step 2).
    const long long arrive1 = std::max(f1End + 100, f0End + (step == 2 ? 0 : 100));
    s1["recvs"].push_back(transfer(step, 0, 0, 0, arrive0 * kUs));
    s1["ops"].push_back(op(step, 0, arrive0 * kUs, f0End * kUs));
    s1["recvs"].push_back(transfer(step, 1, 0, f0End * kUs, arrive1 * kUs));
    s1["ops"].push_back(op(step, 1, arrive1 * kUs, (arrive1 + 4'000) * kUs));
    s1["steps"].push_back(interval(step, 0, (arrive1 + 4'000) * kUs));
  }
  return {{"stages", {s0, s1}}};
}

// The truth written where a recording would have left it.
std::filesystem::path writeTruth(const TempDir& dir, const json& t,
                                 const std::string& name = "truth.json") {
  const auto path = dir / name;
  std::ofstream(path) << t.dump();
  return path;
}

// Transfers measured, steps 1-3: 0.1, 0.1 | 1.1, 0 | 0.1, 0.1 ms; their median is 0.1 ms.
// Step spans: 12.2, 13.1 and 14.1 ms.
TEST(EngineNoise, AddedTimeIsCountedOnTheStageThatHadItAndTheLinksOwnTimeApart) {
  TempDir dir("engine-noise");
  const auto path = writeTruth(dir, truth());

  const RunNoise run = engineRunNoise(path);
  EXPECT_EQ(run.perStep, 3 * kMs / 3);  // 1 ms of the transfer, 2 ms of the op
  EXPECT_EQ(run.late, 0);               // nothing began later than it could
  EXPECT_EQ(run.links, 500 * kUs / 3);  // 0.2 + 0.1 (the 0 ms one adds none) + 0.2 ms
  EXPECT_EQ(run.step, (12'200 + 13'100 + 14'100) * kUs / 3);
  EXPECT_EQ(run.worst, 0);  // its op's 2 ms against stage 1's transfer's 1 ms
  EXPECT_EQ(run.worstStage, 2 * kMs / 3);
  EXPECT_DOUBLE_EQ(run.stageShare(), static_cast<double>(2 * kMs / 3) / run.step);
  EXPECT_DOUBLE_EQ(run.share(), static_cast<double>(kMs) / run.step);
  EXPECT_EQ(run.spreadPerStep(), kMs + 500 * kUs / 3);

  const std::map<int, StepNoise> steps = engineStepNoise(path);
  ASSERT_EQ(steps.size(), 3u);  // step 0 not measured
  EXPECT_EQ(steps.at(1).added, 0);
  EXPECT_EQ(steps.at(1).links, 200 * kUs);
  EXPECT_EQ(steps.at(2).added, kMs);
  EXPECT_EQ(steps.at(2).byStage.at(1), kMs);
  EXPECT_EQ(steps.at(2).step, 13'100 * kUs);
  EXPECT_DOUBLE_EQ(steps.at(2).stageShare(), 1.0 / 13.1);
  EXPECT_EQ(steps.at(3).added, 2 * kMs);
  EXPECT_EQ(steps.at(3).byStage.at(0), 2 * kMs);
  EXPECT_DOUBLE_EQ(steps.at(3).stageShare(), 2.0 / 14.1);
}

// The same with stage 1 descheduled before F1 of step 1: begun 0.5 ms after its input arrived.
json truthWithALateOp() {
  json t = truth();
  json& ops = t["stages"][1]["ops"];
  for (json& o : ops) {
    if (o["step"] == 1 && o["mb"] == 1) {
      o["start_ns"] = o["start_ns"].get<long long>() + 500 * kUs;
      o["end_ns"] = o["end_ns"].get<long long>() + 500 * kUs;
    }
  }
  t["stages"][1]["steps"][1]["end_ns"] =
      t["stages"][1]["steps"][1]["end_ns"].get<long long>() + 500 * kUs;
  return t;
}

// A stage descheduled before an op is late, not long: counted, as late, on that stage.
TEST(EngineNoise, AnOpBegunLateCountsOnItsStage) {
  TempDir dir("engine-noise");
  const auto path = writeTruth(dir, truthWithALateOp());
  const RunNoise run = engineRunNoise(path);
  EXPECT_EQ(run.late, 500 * kUs / 3);
  EXPECT_EQ(run.perStep, (3 * kMs + 500 * kUs) / 3);
  const std::map<int, StepNoise> steps = engineStepNoise(path);
  EXPECT_EQ(steps.at(1).late, 500 * kUs);
  EXPECT_EQ(steps.at(1).byStage.at(1), 500 * kUs);
}

// recordUntilSteady on hand-made "recordings": each attempt writes the truth it is given.
struct Attempts {
  TempDir dir{"engine-noise"};
  std::vector<json> truths;
  int made = 0;
  RecordOnce once() {
    return [this](int attempt) {
      ++made;
      ProcessResult exited;
      exited.exitCode = 0;
      return Recorded{exited, writeTruth(dir, truths.at(attempt - 1),
                                         "truth-" + std::to_string(attempt) + ".json")};
    };
  }
};

double stageShareOf(const json& t) {
  TempDir dir("engine-noise");
  return engineRunNoise(writeTruth(dir, t)).stageShare();
}

TEST(EngineNoise, RecordingStopsAtTheFirstSteadyRunAndElseKeepsTheQuietest) {
  // The late op lengthens step 1 and adds less than stage 0's 2 ms to stage 1: a smaller share.
  const json quiet = truthWithALateOp(), noisy = truth();
  const double quietShare = stageShareOf(quiet), noisyShare = stageShareOf(noisy);
  ASSERT_LT(quietShare, noisyShare);

  Attempts steady;
  steady.truths = {noisy, quiet, quiet};
  // A bound between the two: the second is steady and the third is never made.
  const SteadyRecording s = recordUntilSteady(steady.once(), (quietShare + noisyShare) / 2);
  EXPECT_TRUE(s.steady);
  EXPECT_EQ(s.attempts, 2);
  EXPECT_EQ(s.kept, 2);
  EXPECT_EQ(steady.made, 2);
  EXPECT_EQ(s.tooLoaded(), "");

  Attempts loaded;
  loaded.truths = {noisy, quiet, noisy};
  const SteadyRecording l = recordUntilSteady(loaded.once(), quietShare / 2);
  EXPECT_FALSE(l.steady);
  EXPECT_EQ(l.attempts, 3);
  EXPECT_EQ(l.kept, 2);  // the quietest
  EXPECT_DOUBLE_EQ(l.noise.stageShare(), quietShare);
  EXPECT_TRUE(
      l.tooLoaded().starts_with("the machine was too loaded to time this run: the "
                                "quietest of 3 recordings"))
      << l.tooLoaded();
}

// A recording that failed stops the attempts and is the test's to report, not the load's.
TEST(EngineNoise, AFailedRecordingStopsTheAttemptsAndIsNotCalledLoad) {
  int made = 0;
  const SteadyRecording r = recordUntilSteady([&](int) {
    ++made;
    ProcessResult failed;
    failed.exitCode = 2;
    return Recorded{failed, "/nonexistent/truth.json"};
  });
  EXPECT_EQ(made, 1);
  EXPECT_FALSE(r.steady);
  EXPECT_EQ(r.process.exitCode, 2);
  EXPECT_EQ(r.tooLoaded(), "");
}

// A live job is judged on the sum over its stages (1 ms of 13.1 ms a step here: 7.6%).
TEST(EngineNoise, ALiveJobIsTooLoadedBeyondItsBoundAndSaysByHowMuch) {
  TempDir dir("engine-noise");
  const auto path = writeTruth(dir, truth());
  EXPECT_EQ(liveJobTooLoaded(path), "");
  EXPECT_EQ(liveJobTooLoaded(path, 0.05),
            "the machine was too loaded to time this job: its ops and transfers were stretched "
            "by 7.6% of its step, all stages together (the bound: 5%)");
}

}  // namespace
}  // namespace bubblescope::testing
