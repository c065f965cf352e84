// Each step's reading names what went wrong in that step, wherever the fault sits: a stage that
// turns slow at a seeded step on every stage and schedule, a host stall on every stage in every
// phase; a job without faults names nothing (issue 30).
#include "analyzer/watch/step_reading.h"

#include <gtest/gtest.h>

#include <random>

#include "analyzer/analyze.h"
#include "analyzer/watch/culprit_changes.h"
#include "tests/analyzer/synthetic_run.h"

namespace bubblescope::analysis::watch {
namespace {

using engine::Schedule;
using testing::synthesize;
using testing::SyntheticJob;

constexpr TimeNs kMs = 1'000'000;

// Every step of the run, each analysed alone, as `watch` reads it.
std::vector<StepReading> readEachStep(const traces::Run& run) {
  const AnalysisResult all = analyzeRun(run);
  std::vector<StepReading> out;
  for (const StepInfo& s : all.pipelines.at(0).steps) {
    AnalyzeOptions one;
    one.firstStep = one.lastStep = s.number;
    out.push_back(readStep(analyzeRun(run, one)));
  }
  return out;
}

std::vector<std::pair<std::string, Schedule>> schedules(int p, int m) {
  return {{"1F1B", Schedule::oneF1B(p, m)}, {"GPipe", Schedule::gpipe(p, m)}};
}

TEST(StepReading, AJobWithoutFaultsNamesNoCulpritOnAnyStep) {
  for (const auto& [name, schedule] : schedules(4, 8)) {
    SCOPED_TRACE(name);
    SyntheticJob job;
    job.schedule = schedule;
    job.steps = 5;
    for (const StepReading& r : readEachStep(synthesize(job))) {
      EXPECT_FALSE(r.culprit) << stepLine(r);
      EXPECT_NEAR(r.slowdown, 1.0, 0.01) << stepLine(r);
      EXPECT_GT(r.bubble, 0.0);
      EXPECT_LT(r.bubble, 1.0);
    }
  }
}

// Stage `slow` runs its ops 1.6x from a seeded step to a later one, on every stage in turn: each
// step of the fault names that stage's imbalance, every other step names nothing, and the change
// starts within kConfirmSteps of the onset and ends within kConfirmSteps of the end.
TEST(StepReading, AStageThatTurnsSlowIsNamedOnEveryStepOfTheFaultAndNoOther) {
  std::mt19937 rng(30);
  const int p = 4, steps = 12;
  for (const auto& [name, schedule] : schedules(p, 8)) {
    for (int slow = 0; slow < p; ++slow) {
      const int onset = std::uniform_int_distribution<int>(1, 5)(rng);
      const int end = onset + std::uniform_int_distribution<int>(3, 5)(rng);  // exclusive
      SCOPED_TRACE(name + ": stage " + std::to_string(slow) + " slow in steps " +
                   std::to_string(onset) + " to " + std::to_string(end - 1));
      SyntheticJob job;
      job.schedule = schedule;
      job.steps = steps;
      const TimeNs base = 2 * kMs;
      job.cost = [&, slow, onset, end](int stage, int step, const engine::Op& op) {
        const TimeNs c = op.kind == engine::OpKind::BW ? 2 * base : base;
        return stage == slow && step >= onset && step < end ? c * 8 / 5 : c;
      };
      const std::vector<StepReading> readings = readEachStep(synthesize(job));
      ASSERT_EQ(readings.size(), static_cast<size_t>(steps));
      CulpritChanges changes;
      std::vector<CulpritChange> seen;
      for (size_t i = 0; i < readings.size(); ++i) {
        const StepReading& r = readings[i];
        const bool faulty = static_cast<int>(i) >= onset && static_cast<int>(i) < end;
        if (faulty) {
          ASSERT_TRUE(r.culprit) << stepLine(r);
          EXPECT_EQ(r.culprit->cause, IdleClass::Imbalance) << stepLine(r);
          EXPECT_EQ(r.culprit->stage, slow) << stepLine(r);
          EXPECT_NEAR(r.culprit->ratio, 1.6 * p / (p + 0.6), 0.05) << stepLine(r);
          EXPECT_GT(r.slowdown, 1.05) << stepLine(r);
        } else {
          EXPECT_FALSE(r.culprit) << stepLine(r);
        }
        for (const CulpritChange& c : changes.observe(r)) seen.push_back(c);
      }
      ASSERT_EQ(seen.size(), 2u);
      EXPECT_TRUE(seen[0].started);
      EXPECT_EQ(seen[0].firstStep, readings[onset].step);
      EXPECT_LE(seen[0].atStep - readings[onset].step, kConfirmSteps - 1);
      EXPECT_FALSE(seen[1].started);
      EXPECT_EQ(seen[1].lastStep, readings[end - 1].step);
      EXPECT_LE(seen[1].atStep - readings[end - 1].step, kConfirmSteps);
    }
  }
}

// A host stall before one op, on every stage, in warm-up, steady state and drain (the first,
// a middle and the last microbatch's forward), at a seeded step: that step's line names a stall
// on that stage, and the steps around it name nothing.
TEST(StepReading, AStallIsNamedOnItsStageInEveryPhase) {
  std::mt19937 rng(31);
  const int p = 4, m = 8, steps = 6;
  for (int stage = 0; stage < p; ++stage) {
    for (int mb : {0, m / 2, m - 1}) {
      // Stage 0's wait before its first forward moves the step's start (its earliest op), not
      // its end: it lies between two steps, in neither (analysis.md §2).
      if (stage == 0 && mb == 0) continue;
      const int at = std::uniform_int_distribution<int>(1, steps - 2)(rng);
      SCOPED_TRACE("stage " + std::to_string(stage) + ", F" + std::to_string(mb) + ", step " +
                   std::to_string(at));
      SyntheticJob job;
      job.schedule = Schedule::oneF1B(p, m);
      job.steps = steps;
      job.hostBusy = true;
      job.stall[{stage, at, mb, engine::OpKind::F}] = 12 * kMs;
      const std::vector<StepReading> readings = readEachStep(synthesize(job));
      for (size_t i = 0; i < readings.size(); ++i) {
        const StepReading& r = readings[i];
        if (static_cast<int>(i) != at) {
          EXPECT_FALSE(r.culprit) << stepLine(r);
          continue;
        }
        ASSERT_TRUE(r.culprit) << stepLine(r);
        EXPECT_TRUE(isStall(r.culprit->cause)) << stepLine(r);
        EXPECT_EQ(r.culprit->stage, stage) << stepLine(r);
        EXPECT_GT(r.culprit->cost, 0);
        EXPECT_LE(r.culprit->cost, 12 * kMs + kMs / 10) << stepLine(r);
      }
    }
  }
}

TEST(StepReading, TheLineSaysTheStepItsTimeBubbleSAndCulprit) {
  StepReading r;
  r.step = 1412;
  r.stepTime = 812'300'000;
  r.bubble = 0.312;
  r.slowdown = 1.14;
  EXPECT_EQ(stepLine(r), "step 1412  812.3 ms  bubble 31.2%  S 1.14x  no culprit");
  StepCulprit c;
  c.cause = IdleClass::Imbalance;
  c.stage = 2;
  c.op = engine::OpKind::BW;
  c.ratio = 1.41;
  c.cost = 96 * kMs;
  r.culprit = c;
  EXPECT_EQ(stepLine(r),
            "step 1412  812.3 ms  bubble 31.2%  S 1.14x  imbalance: stage 2 BW +96.0 ms (1.41x)");
  c = StepCulprit{};
  c.cause = IdleClass::CommStall;
  c.stage = 1;
  c.toStage = 2;
  c.cost = 12 * kMs;
  r.culprit = c;
  EXPECT_EQ(stepLine(r),
            "step 1412  812.3 ms  bubble 31.2%  S 1.14x  stall: comm on stage 1->2 +12.0 ms");
  EXPECT_EQ(c.key(), "stall_comm stage 1");
  EXPECT_EQ(c.where(), "stall: comm on stage 1");
}

}  // namespace
}  // namespace bubblescope::analysis::watch
