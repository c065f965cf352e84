// Every schedule runs to completion as real processes for p ∈ {2, 4, 8} and several m, without
// deadlock; every stage runs exactly its schedule's ops in order each step, and no op starts
// before its input arrived from the op that produced it.
#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "reference_engine/schedule/schedule.h"
#include "tests/reference_engine/executor/engine_run.h"

namespace bubblescope::engine {
namespace {

using test::json;

struct Case {
  std::string schedule;
  int p;
  int m;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.schedule << " p=" << c.p << " m=" << c.m;
}

std::string caseName(const ::testing::TestParamInfo<Case>& info) {
  std::string s;
  for (char c : info.param.schedule) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return s + "_p" + std::to_string(info.param.p) + "_m" + std::to_string(info.param.m);
}

std::vector<Case> allCases() {
  std::vector<Case> cases;
  for (const std::string& s : scheduleNames()) {
    for (int p : {2, 4, 8}) {
      for (int m : {p, 2 * p}) cases.push_back({s, p, m});
    }
  }
  // Fewer microbatches than stages, and a count that is no multiple of p.
  for (const char* s : {"gpipe", "1f1b"}) {
    cases.push_back({s, 4, 1});
    cases.push_back({s, 4, 3});
  }
  return cases;
}

class EverySchedule : public ::testing::TestWithParam<Case> {};

constexpr int kSteps = 2;

TEST_P(EverySchedule, RunsEveryOpOncePerStepInScheduleOrderAfterItsInputs) {
  const Case& c = GetParam();
  const Schedule expected = Schedule::byName(c.schedule, c.p, c.m);
  testing::TempDir dir;
  auto run =
      test::runEngine(dir, {"--schedule", c.schedule, "-p", std::to_string(c.p), "-m",
                            std::to_string(c.m), "--steps", std::to_string(kSteps), "--op-ms",
                            "0.2", "--optimizer-ms", "0.1", "--payload-bytes", "1024"});
  ASSERT_EQ(run.process.exitCode, 0) << run.process.err;
  ASSERT_FALSE(run.truth.is_null());
  const json& truth = run.truth;
  ASSERT_EQ(truth["stages"].size(), static_cast<size_t>(c.p));
  EXPECT_EQ(truth["v"], expected.v);

  // Schedule order, every op exactly once per step.
  for (int s = 0; s < c.p; ++s) {
    const json& stage = truth["stages"][static_cast<size_t>(s)];
    for (int step = 0; step < kSteps; ++step) {
      auto ops = test::opsOf(stage, step);
      ASSERT_EQ(ops.size(), expected.stages[static_cast<size_t>(s)].size()) << "stage " << s;
      for (size_t i = 0; i < ops.size(); ++i) {
        const Op& want = expected.stages[static_cast<size_t>(s)][i];
        EXPECT_EQ(ops[i]["kind"], kindName(want.kind)) << "stage " << s << " op " << i;
        EXPECT_EQ(ops[i]["mb"], want.mb) << "stage " << s << " op " << i;
        EXPECT_EQ(ops[i]["chunk"], want.chunk) << "stage " << s << " op " << i;
        if (i > 0) {
          EXPECT_GE(ops[i]["start_ns"], ops[i - 1]["end_ns"]);
        }
      }
    }
  }

  // Each cross-stage input: produced, then received, then consumed. Count what the schedule's
  // chunk layout implies, independently of the engine's own plan.
  std::map<int, int> expectedRecvs;  // stage → per step
  for (int s = 0; s < c.p; ++s) {
    for (const Op& op : expected.stages[static_cast<size_t>(s)]) {
      const int vs = expected.virtualStage(s, op.chunk);
      int from = -1;
      if (op.kind == OpKind::F && vs > 0) from = expected.stageOf(vs - 1);
      if ((op.kind == OpKind::B || op.kind == OpKind::BW) && vs + 1 < expected.virtualStages()) {
        from = expected.stageOf(vs + 1);
      }
      if (from >= 0 && from != s) ++expectedRecvs[s];
    }
  }
  size_t sends = 0, recvs = 0;
  for (int s = 0; s < c.p; ++s) {
    const json& stage = truth["stages"][static_cast<size_t>(s)];
    sends += stage["sends"].size();
    recvs += stage["recvs"].size();
    EXPECT_EQ(stage["recvs"].size(), static_cast<size_t>(expectedRecvs[s] * kSteps))
        << "stage " << s;
    for (const json& r : stage["recvs"]) {
      const int step = r["step"], mb = r["mb"], chunk = r["chunk"], peer = r["peer"];
      const bool gradient = r["kind"] == "B";
      const json& peerStage = truth["stages"][static_cast<size_t>(peer)];
      json producer = gradient ? test::findOp(peerStage, step, "B", mb, r["peer_chunk"])
                               : test::findOp(peerStage, step, "F", mb, r["peer_chunk"]);
      if (producer.is_null() && gradient) {
        producer = test::findOp(peerStage, step, "BW", mb, r["peer_chunk"]);
      }
      json consumer = gradient ? test::findOp(stage, step, "B", mb, chunk)
                               : test::findOp(stage, step, "F", mb, chunk);
      if (consumer.is_null() && gradient) consumer = test::findOp(stage, step, "BW", mb, chunk);
      ASSERT_FALSE(producer.is_null()) << r.dump();
      ASSERT_FALSE(consumer.is_null()) << r.dump();
      EXPECT_LE(producer["end_ns"], r["end_ns"]) << r.dump();
      EXPECT_LE(r["end_ns"], consumer["start_ns"]) << r.dump();
    }
  }
  EXPECT_EQ(sends, recvs);

  // A step starts on any stage only after the previous one's ops ended on every stage.
  for (int step = 1; step < kSteps; ++step) {
    int64_t prevOpsEnd = 0, start = INT64_MAX;
    for (const json& stage : truth["stages"]) {
      for (const json& op : test::opsOf(stage, step - 1)) {
        prevOpsEnd = std::max(prevOpsEnd, op["end_ns"].get<int64_t>());
      }
      start = std::min(start, stage["steps"][static_cast<size_t>(step)]["start_ns"].get<int64_t>());
    }
    EXPECT_GE(start, prevOpsEnd) << "step " << step;
  }
}

INSTANTIATE_TEST_SUITE_P(Engine, EverySchedule, ::testing::ValuesIn(allCases()), caseName);

}  // namespace
}  // namespace bubblescope::engine
