// The engine's JSON, streamed: the configuration the launcher hands the stages, a stage's part and
// truth.json are byte for byte nlohmann's dump of the same documents, as they were before they were
// streamed (issue 29); and each reads back as what was written (the stages read the
// configuration, the engine the parts).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "reference_engine/executor/config_json.h"
#include "reference_engine/executor/stage_record.h"
#include "reference_engine/executor/truth.h"

namespace bubblescope::engine {
namespace {

using nlohmann::json;

// Every fault kind, each stall with and without its step, faults with and without a step range,
// and a mismatch that deadlocks 1F1B.
EngineConfig everyMemberSet(ComputeMode compute) {
  EngineConfig c;
  c.scheduleName = "1f1b";
  c.schedule = Schedule::oneF1B(4, 8);
  c.steps = 2;
  c.compute = compute;
  c.labels = compute != ComputeMode::Mlp;
  c.costs = {2.5, 3.0, 0.125, 1.0};
  c.payloadBytes = 1 << 20;
  c.mlp = {64, 16, 0.5, 1.25};
  c.seed = 18'446'744'073'709'551'615u;
  c.faults.slowStages = {{2, 1.5}, {1, 2, StepRange{1, std::nullopt}}, {1, 3, StepRange{0, 1}}};
  c.faults.stalls = {{1, 5, 20, std::nullopt}, {2, 1, 7.5, 1}, {0, 2, 4, std::nullopt, {{1, 2}}}};
  c.faults.hostStalls = {{3, 0, 15, 0}};
  c.faults.commDelays = {{1, 8}, {2, 3, StepRange{0, 1}}};
  c.faults.jitterPct = 30;
  c.faults.crashes = {{2, 1, 0}};
  c.faults.mismatches = {{1, 4}};
  c.faults.hangs = {{2, 3, 0}};
  c.faults.lateStarts = {{3, 2.5}};
  c.truthPath = "out/truth \"café\".json";
  c.timeoutSeconds = 2.5;
  c.workerCommand = {"/usr/bin/bubblescope", "engine", "worker"};
  c.commandLine = {"bubblescope", "engine", "run", "--stall", "1:5:20", "caf\xc3\xa9\t"};
  return c;
}

StageRecord stageRecord(int stage, bool loss) {
  StageRecord r;
  r.stage = stage;
  r.pid = 4000 + stage;
  const int64_t t0 = 1'700'000'000'000'000'000;
  r.ops = {{0, {OpKind::F, 0, 0}, t0, t0 + 2'000'000}, {0, {OpKind::BW, 0, 1}, t0 + 3, t0 + 9}};
  // Out of time order, as the channels hand them over: written sorted by start.
  r.sends = {{0, true, 1, 0, stage + 1, 0, 65536, t0 + 50, t0 + 60},
             {0, false, 0, 0, stage + 1, 1, 65536, t0 + 10, t0 + 20}};
  r.recvs = {{0, false, 2, 0, stage - 1, 0, 65536, t0 + 5, t0 + 6}};
  r.steps = {{0, {t0, t0 + 100}, {t0 + 80, t0 + 90}, {t0 + 90, t0 + 100}, std::nullopt},
             {1, {t0 + 100, t0 + 200}, {t0 + 180, t0 + 190}, {t0 + 190, t0 + 200}, std::nullopt}};
  if (loss) {
    r.steps[0].loss = 0.40000000000000002;
    r.steps[1].loss = 1.0 / 3;
  }
  r.injected = {{"stall", 0, 5, {t0 + 30, t0 + 50}}};
  r.ranges = {{"F mb=0", 4000, t0, t0 + 2'000'000},
              {"SEND F mb=0 to=1 \"x\"", 4001, t0 + 10, t0 + 20}};
  r.threads = {{4000, "stage " + std::to_string(stage)}, {4001, "stage 0 \xe2\x86\x92 1"}};
  // Not by name, as the worker reads them: written sorted.
  r.environment = {
      {"RANK", std::to_string(stage)}, {"BUBBLESCOPE_PP_RANK", "0"}, {"LOCAL_RANK", "0"}};
  return r;
}

std::string partText(const StageRecord& r) {
  std::ostringstream out;
  {
    traces::JsonWriter writer(out);
    writeStageRecordJson(r, writer);
  }
  return out.str();
}

TEST(EngineJson, ConfigurationIsDumpsBytesAndReadsBackAsWritten) {
  for (ComputeMode compute : {ComputeMode::Sleep, ComputeMode::Mlp}) {
    const EngineConfig c = everyMemberSet(compute);
    std::ostringstream out;
    writeEngineConfigJson(c, out);
    const json parsed = json::parse(out.str());
    EXPECT_EQ(out.str(), parsed.dump(1) + "\n");
    const EngineConfig back = engineConfigFromJson(parsed);
    EXPECT_EQ(back.scheduleName, c.scheduleName);
    EXPECT_EQ(back.schedule.stages, c.schedule.stages);
    EXPECT_EQ(back.schedule.kind, c.schedule.kind);
    EXPECT_EQ(back.compute, c.compute);
    EXPECT_EQ(back.labels, c.labels);
    EXPECT_EQ(back.costs.bMs, 3.0);
    EXPECT_EQ(back.costs.wMs, 0.125);
    EXPECT_EQ(back.seed, c.seed);
    EXPECT_EQ(back.mlp.maxGradNorm, 1.25);
    EXPECT_EQ(back.faults.stalls.size(), 3u);
    EXPECT_FALSE(back.faults.stalls[0].step.has_value());
    EXPECT_EQ(back.faults.stalls[1].step, 1);
    EXPECT_EQ(back.faults.hostStalls[0].ms, 15);
    // Each fault's step range, as the stages apply it.
    ASSERT_EQ(back.faults.slowStages.size(), 3u);
    EXPECT_FALSE(back.faults.slowStages[0].steps.has_value());
    ASSERT_TRUE(back.faults.slowStages[1].steps.has_value());
    EXPECT_EQ(back.faults.slowStages[1].steps->from, 1);
    EXPECT_FALSE(back.faults.slowStages[1].steps->to.has_value());
    EXPECT_EQ(back.faults.slowStages[2].steps->to, 1);
    EXPECT_FALSE(back.faults.stalls[1].steps.has_value());
    ASSERT_TRUE(back.faults.stalls[2].steps.has_value());
    EXPECT_EQ(back.faults.stalls[2].steps->from, 1);
    EXPECT_EQ(back.faults.stalls[2].steps->to, 2);
    EXPECT_FALSE(back.faults.commDelays[0].steps.has_value());
    EXPECT_EQ(back.faults.commDelays[1].steps->from, 0);
    EXPECT_EQ(back.faults.commDelays[1].steps->to, 1);
    EXPECT_EQ(back.faults.mismatches[0].mb, 4);
    EXPECT_EQ(back.faults.hangs[0].mb, 3);
    ASSERT_EQ(back.faults.lateStarts.size(), 1u);
    EXPECT_EQ(back.faults.lateStarts[0].stage, 3);
    EXPECT_EQ(back.faults.lateStarts[0].seconds, 2.5);
    EXPECT_EQ(back.faults.jitterPct, 30);
    EXPECT_EQ(back.truthPath, c.truthPath);
    EXPECT_EQ(back.timeoutSeconds, 2.5);
    EXPECT_EQ(back.workerCommand, c.workerCommand);
    EXPECT_EQ(back.commandLine, c.commandLine);
    // The configuration's faults say nothing of where a mismatch blocks: that is the truth's.
    EXPECT_FALSE(parsed["faults"]["mismatches"][0].contains("op"));
  }
}

TEST(EngineJson, StagePartIsDumpsBytesAndReadsBackToTheSameBytes) {
  for (bool loss : {false, true}) {
    const std::string text = partText(stageRecord(1, loss));
    const json parsed = json::parse(text);
    EXPECT_EQ(text, parsed.dump());
    EXPECT_EQ(partText(stageRecordFromJson(parsed)), text);
    EXPECT_EQ(parsed["sends"][0]["start_ns"], 1'700'000'000'000'000'010);
    EXPECT_EQ(parsed["sends"][1]["kind"], "B");
    EXPECT_EQ(parsed["rank"], 1);
    EXPECT_EQ(parsed["environment"]["RANK"], "1");
    EXPECT_EQ(parsed["steps"][0].contains("loss"), loss);
  }
}

TEST(EngineJson, TruthIsDumpsBytesWithTheStagesPartsAndTheMismatchsEffect) {
  for (ComputeMode compute : {ComputeMode::Sleep, ComputeMode::Mlp}) {
    const EngineConfig c = everyMemberSet(compute);
    const std::vector<StageRecord> stages = {stageRecord(0, true), stageRecord(1, true)};
    for (const auto& [parts, outcome] :
         {std::pair{stages, std::string("finished")},
          std::pair{std::vector<StageRecord>{}, std::string("timed out after 2.5 s")}}) {
      std::ostringstream out;
      writeTruthJson(c, parts, 1'700'000'000'000'000'000, 1'700'000'001'000'000'000, outcome, out);
      const json truth = json::parse(out.str());
      EXPECT_EQ(out.str(), truth.dump(1) + "\n");
      EXPECT_EQ(truth["outcome"], outcome);
      EXPECT_EQ(truth["schema_version"], kTruthSchemaVersion);
      EXPECT_EQ(truth["stages"].size(), parts.size());
      for (size_t s = 0; s < parts.size(); ++s) {
        EXPECT_EQ(truth["stages"][s], json::parse(partText(parts[s]))) << s;
      }
      // A fault without a range is written as before ranges existed (tests compare its bytes); a
      // ranged one adds its first step and its exclusive end (null: to the run's end).
      const json& faults = truth["faults"];
      EXPECT_EQ(faults["slow_stages"][0].dump(), R"({"factor":1.5,"stage":2})");
      EXPECT_EQ(faults["slow_stages"][1].dump(),
                R"({"factor":2.0,"from_step":1,"stage":1,"to_step":null})");
      EXPECT_EQ(faults["slow_stages"][2].dump(),
                R"({"factor":3.0,"from_step":0,"stage":1,"to_step":1})");
      EXPECT_EQ(faults["comm_delays"][0].dump(), R"({"ms":8.0,"stage":1})");
      EXPECT_EQ(faults["comm_delays"][1].dump(),
                R"({"from_step":0,"ms":3.0,"stage":2,"to_step":1})");
      EXPECT_EQ(faults["stalls"][0].dump(), R"({"mb":5,"ms":20.0,"stage":1,"step":null})");
      EXPECT_EQ(faults["stalls"][2].dump(),
                R"({"from_step":1,"mb":2,"ms":4.0,"stage":0,"step":null,"to_step":2})");
      const json& mm = truth["faults"]["mismatches"][0];
      EXPECT_EQ(mm["op"], "F mb=4");
      EXPECT_EQ(mm["stage_waits"], "RECV B mb=3 from=2");
      EXPECT_EQ(mm["peer"], 2);
      EXPECT_EQ(truth.contains("labels"), !c.labels);
      if (compute == ComputeMode::Mlp) {
        EXPECT_EQ(truth["mlp"]["layers"], 4);
        EXPECT_EQ(truth["loss"].size(), parts.empty() ? 0u : 2u);
      } else {
        EXPECT_FALSE(truth.contains("loss"));
        EXPECT_FALSE(truth.contains("mlp"));
      }
    }
  }
}

}  // namespace
}  // namespace bubblescope::engine
