// Injected faults leave exactly the evidence a profiler must find: a slow stage's ops are longer
// (from its onset step on, when it has one), a stall is a gap with the inputs ready, a comm delay
// lengthens the sends and the receivers' waits, a host stall is a busy `dataloader` range, jitter
// spreads op costs within its bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "tests/reference_engine/executor/engine_run.h"
#include "tests/support/engine_noise.h"

namespace bubblescope::engine {
namespace {

using test::json;

int64_t ns(const json& v) {
  return v.get<int64_t>();
}

std::vector<std::string> base(int p, int m, int steps, const char* opMs) {
  return {
      "--schedule",          "1f1b",    "-p", std::to_string(p), "-m", std::to_string(m), "--steps",
      std::to_string(steps), "--op-ms", opMs};
}

std::vector<std::string> with(std::vector<std::string> args,
                              std::initializer_list<const char*> more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

json recvFor(const json& stage, int step, const std::string& kind, int mb) {
  for (const json& r : stage["recvs"]) {
    if (r["step"] == step && r["kind"] == kind && r["mb"] == mb) return r;
  }
  return nullptr;
}

TEST(EngineFaults, SlowStageRunsItsOpsFactorTimesLonger) {
  testing::TempDir dir;
  auto run = test::runEngine(dir, with(base(4, 4, 2, "3"), {"--slow-stage", "2:1.5"}));
  ASSERT_EQ(run.process.exitCode, 0) << run.process.err;
  for (const char* kind : {"F", "BW"}) {
    std::vector<double> others;
    for (int s : {0, 1, 3}) {
      auto d = test::opDurationsMs(run.truth["stages"][static_cast<size_t>(s)], kind);
      others.insert(others.end(), d.begin(), d.end());
    }
    const double slow = test::quantile(test::opDurationsMs(run.truth["stages"][2], kind), 0.25);
    const double normal = test::quantile(others, 0.25);
    EXPECT_NEAR(slow / normal, 1.5, 0.15) << kind << ": " << slow << " ms vs " << normal;
  }
  EXPECT_EQ(run.truth["faults"]["slow_stages"][0]["stage"], 2);
  EXPECT_EQ(run.truth["faults"]["slow_stages"][0]["factor"], 1.5);
}

TEST(EngineFaults, StallIsAnIdleGapBeforeTheOpWhoseInputIsReady) {
  testing::TempDir dir;
  auto run = test::runEngine(dir, with(base(4, 8, 2, "1"), {"--stall", "1:5:20"}));
  ASSERT_EQ(run.process.exitCode, 0) << run.process.err;
  const json& st = run.truth["stages"][1];
  const int64_t stallNs = 20'000'000;
  for (int step = 0; step < 2; ++step) {
    auto ops = test::opsOf(st, step);
    size_t i = 0;
    while (i < ops.size() && ops[i]["mb"] != 5) ++i;
    ASSERT_LT(i, ops.size());
    ASSERT_GT(i, 0u);
    const int64_t start = ns(ops[i]["start_ns"]);
    EXPECT_GE(start - ns(ops[i - 1]["end_ns"]), stallNs) << "step " << step;
    const json recv = recvFor(st, step, "F", 5);
    ASSERT_FALSE(recv.is_null());
    EXPECT_GE(start - ns(recv["end_ns"]), stallNs) << "the input was there before the stall";
    // Nothing but the step range is open on the main thread during the stall.
    for (const json& r : st["nvtx"]) {
      if (r["tid"] != st["pid"] || r["name"].get<std::string>().rfind("step ", 0) == 0) continue;
      const bool overlaps =
          ns(r["end_ns"]) > start - stallNs + 1'000'000 && ns(r["start_ns"]) < start - 1'000'000;
      EXPECT_FALSE(overlaps) << r["name"];
    }
  }
  ASSERT_EQ(st["injected"].size(), 2u);
  EXPECT_EQ(st["injected"][0]["fault"], "stall");
  EXPECT_GE(test::durationMs(st["injected"][0]), 20.0);
}

TEST(EngineFaults, StallWithAStepHitsOnlyThatStep) {
  testing::TempDir dir;
  auto run = test::runEngine(dir, with(base(2, 4, 2, "1"), {"--stall", "1:2:15:1"}));
  ASSERT_EQ(run.process.exitCode, 0) << run.process.err;
  const json& st = run.truth["stages"][1];
  ASSERT_EQ(st["injected"].size(), 1u);
  EXPECT_EQ(st["injected"][0]["step"], 1);
  auto gapMs = [&](int step, const std::string& kind, int mb) {
    const json op = test::findOp(st, step, kind, mb);
    const json recv = recvFor(st, step, kind, mb);
    return static_cast<double>(ns(op["start_ns"]) - ns(recv["end_ns"])) / 1e6;
  };
  // What the machine alone put between an input and its op in this run (a loaded machine
  // preempts a stage there for milliseconds): the largest such gap of the stage's other forwards.
  double noiseMs = 0;
  for (int step = 0; step < 2; ++step) {
    for (int mb : {0, 1, 3}) noiseMs = std::max(noiseMs, gapMs(step, "F", mb));
  }
  EXPECT_GE(gapMs(1, "F", 2), 15.0);
  // Step 0's gap is no stall: shorter than one, unless the machine left as long a gap before
  // another forward of this run.
  EXPECT_LT(gapMs(0, "F", 2), std::max(15.0, noiseMs)) << "the machine's largest: " << noiseMs;
}

TEST(EngineFaults, CommDelayHoldsEverySendOfTheStageInsideItsSendRange) {
  testing::TempDir dir;
  auto run = test::runEngine(dir, with(base(4, 4, 1, "1"), {"--comm-delay", "1:8"}));
  ASSERT_EQ(run.process.exitCode, 0) << run.process.err;
  const json& stages = run.truth["stages"];
  ASSERT_EQ(stages[1]["sends"].size(), 8u);
  for (const json& s : stages[1]["sends"]) EXPECT_GE(test::durationMs(s), 8.0) << s.dump();
  std::vector<double> others;
  for (int s : {0, 2, 3}) {
    for (const json& send : stages[static_cast<size_t>(s)]["sends"])
      others.push_back(test::durationMs(send));
  }
  EXPECT_LT(test::median(others), 2.0);
  // The SEND ranges of stage 1 carry the delay.
  for (const json& r : stages[1]["nvtx"]) {
    if (r["name"].get<std::string>().rfind("SEND", 0) == 0) {
      EXPECT_GE(test::durationMs(r), 8.0);
    }
  }
  // Stage 2 waits for activations although stage 1 finished computing them 8 ms earlier.
  for (const json& recv : stages[2]["recvs"]) {
    if (recv["kind"] != "F") continue;
    const json producer = test::findOp(stages[1], 0, "F", recv["mb"]);
    EXPECT_GE(ns(recv["end_ns"]) - ns(producer["end_ns"]), 8'000'000) << recv.dump();
  }
}

TEST(EngineFaults, HostStallIsABusyDataloaderRangeBeforeTheOp) {
  testing::TempDir dir;
  auto run = test::runEngine(dir, with(base(4, 4, 2, "1"), {"--host-stall", "2:3:15"}));
  ASSERT_EQ(run.process.exitCode, 0) << run.process.err;
  const json& st = run.truth["stages"][2];
  ASSERT_EQ(test::rangeCount(st, "dataloader"), 2);
  // A sleep ends late, never early, and on a loaded machine by any amount (a 15 ms stall read
  // 56 ms at load 8, while 1 ms ops overran by 6 ms): the range's place, not its length, is what
  // says it was the stall (issue 28, rule 11).
  int step = 0;
  for (const json& r : st["nvtx"]) {
    if (r["name"] != "dataloader") continue;
    EXPECT_EQ(r["tid"], st["pid"]);
    EXPECT_GE(test::durationMs(r), 15.0);
    const json op = test::findOp(st, step, "F", 3);
    const json recv = recvFor(st, step, "F", 3);
    EXPECT_LE(ns(r["end_ns"]), ns(op["start_ns"]));
    EXPECT_LE(ns(recv["end_ns"]), ns(r["start_ns"])) << "the input was there before the stall";
    ++step;
  }
  EXPECT_EQ(st["injected"][0]["fault"], "host_stall");
}

TEST(EngineFaults, JitterSpreadsOpCostsWithinItsBound) {
  testing::TempDir dir;
  auto run = test::runEngine(dir, with(base(2, 8, 2, "2"), {"--jitter", "30", "--seed", "7"}));
  ASSERT_EQ(run.process.exitCode, 0) << run.process.err;
  std::vector<double> f;
  for (const json& st : run.truth["stages"]) {
    auto d = test::opDurationsMs(st, "F");
    f.insert(f.end(), d.begin(), d.end());
  }
  // A sleep can end late by any amount on a loaded machine, never early: the draws' upper bound
  // is op_costs_test's (CostModel), a run can show only the lower one and the spread.
  const double lo = test::quantile(f, 0), p10 = test::quantile(f, 0.1),
               p75 = test::quantile(f, 0.75);
  EXPECT_GE(lo, 2.0 * 0.7 * 0.99);
  EXPECT_GT(p75 / p10, 1.15) << p10 << " " << p75;
  EXPECT_EQ(run.truth["faults"]["jitter_pct"], 30);
  EXPECT_EQ(run.truth["seed"], 7);
}

// A run the machine stretched by at most engine_noise.h's bound, made up to three times, or the
// quietest of them with the line that says the machine was too loaded to time it.
struct SteadyRun {
  test::EngineRun run;
  std::string tooLoaded;  // empty when steady
};

SteadyRun steadyRun(const testing::TempDir& dir, const std::vector<std::string>& args) {
  std::vector<test::EngineRun> runs;  // each holds its truth: the next run rewrites the file
  const testing::SteadyRecording verdict = testing::recordUntilSteady([&](int) {
    runs.push_back(test::runEngine(dir, args));
    return testing::Recorded{runs.back().process, dir / "truth.json"};
  });
  return {runs.at(verdict.kept - 1), verdict.tooLoaded()};
}

// The shortest op of each kind a stage ran in a step: a sleep ends late, never early, so the
// shortest is the one the machine stretched least.
double shortestMs(const json& stage, int step, const std::string& kind) {
  double best = 0;
  for (const json& op : test::opsOf(stage, step)) {
    if (op["kind"] != kind) continue;
    const double d = test::durationMs(op);
    best = best == 0 ? d : std::min(best, d);
  }
  return best;
}

// The fault a live watcher must see begin: from step 4 on, and in no step before, stage 1's ops
// take twice what the other stages' do, and step 4 is the step the NVTX ranges call `step 4`.
TEST(EngineFaults, SlowStageFromAStepSlowsItsOpsFromThatStepOnOnly) {
  constexpr int kSteps = 8, kOnset = 4, kSlow = 1;
  constexpr double kFactor = 2;
  testing::TempDir dir;
  const SteadyRun r = steadyRun(dir, with(base(3, 4, kSteps, "2"), {"--slow-stage", "1:2@4"}));
  ASSERT_EQ(r.run.process.exitCode, 0) << r.run.process.err;
  if (!r.tooLoaded.empty()) GTEST_SKIP() << r.tooLoaded;
  const json& truth = r.run.truth;

  // The truth says when it began, and that it never ended (to the run's end).
  const json& fault = truth["faults"]["slow_stages"][0];
  EXPECT_EQ(fault["stage"], kSlow);
  EXPECT_EQ(fault["factor"], kFactor);
  EXPECT_EQ(fault["from_step"], kOnset);
  EXPECT_TRUE(fault["to_step"].is_null());

  // Which steps ran stage 1 slow: its shortest op of each kind against the other stages' in the
  // same step, called slow above halfway between 1x and the factor.
  std::set<int> slowSteps;
  for (int step = 0; step < kSteps; ++step) {
    int slowKinds = 0;
    for (const char* kind : {"F", "BW"}) {
      double others = 0;
      for (int s : {0, 2}) {
        const double d = shortestMs(truth["stages"][static_cast<size_t>(s)], step, kind);
        others = others == 0 ? d : std::min(others, d);
      }
      const double ratio = shortestMs(truth["stages"][kSlow], step, kind) / others;
      slowKinds += ratio > (1 + kFactor) / 2;
    }
    EXPECT_NE(slowKinds, 1) << "step " << step << ": one kind slow, the other not";
    if (slowKinds == 2) slowSteps.insert(step);
  }
  std::set<int> expected;
  for (int step = kOnset; step < kSteps; ++step) expected.insert(step);
  EXPECT_EQ(slowSteps, expected);

  // Each op lies in the NVTX step range of its own step's number: what a trace's reader sees as
  // `step 4` is the step the fault began in.
  const json& st = truth["stages"][kSlow];
  for (const json& op : st["ops"]) {
    int enclosing = -1;
    for (const json& range : st["nvtx"]) {
      const std::string name = range["name"];
      if (range["tid"] != st["pid"] || name.rfind("step ", 0) != 0) continue;
      if (ns(range["start_ns"]) <= ns(op["start_ns"]) && ns(op["end_ns"]) <= ns(range["end_ns"]))
        enclosing = std::stoi(name.substr(5));
    }
    EXPECT_EQ(enclosing, op["step"]) << op.dump();
  }
}

}  // namespace
}  // namespace bubblescope::engine
