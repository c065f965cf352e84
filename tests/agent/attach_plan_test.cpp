// Aligning capture across ranks: the first step every rank of a run captures, and what ranks
// without step markers or far behind the others do instead.
#include "agent/control/attach_plan.h"

#include <gtest/gtest.h>

namespace bubblescope::control {
namespace {

constexpr int64_t kMs = 1'000'000;

RankState rank(int64_t pid, int64_t step, int64_t stepNs = 100 * kMs, int64_t ageNs = 0,
               std::string run = "r1") {
  return {pid, std::move(run), step, stepNs, ageNs};
}

AttachRequest steps(int64_t n, int64_t leadNs = 0) {
  AttachRequest r;
  r.steps = n;
  r.leadNs = leadNs;
  return r;
}

TEST(AttachPlan, EveryRankStartsAtTheStepAfterTheLeaders) {
  // Ranks of a pipeline are within a step of each other; the leader's next step is the first
  // one no rank has begun.
  const auto plans = planAttach({rank(1, 17), rank(2, 18), rank(3, 17)}, steps(2));
  ASSERT_EQ(plans.size(), 3u);
  for (const PlannedStart& p : plans) {
    EXPECT_EQ(p.kind, PlannedStart::Kind::Steps);
    EXPECT_EQ(p.firstStep, 19);
    EXPECT_EQ(p.command.verb, Command::Verb::Start);
    EXPECT_EQ(p.command.steps, 2);
    EXPECT_EQ(p.command.fromStep, 19);
    EXPECT_EQ(p.command.durationNs, 0);
  }
}

TEST(AttachPlan, StartsFartherAheadWhenStepsAreShorterThanTheRequestsTakeToArrive) {
  struct Case {
    int64_t stepNs, ageNs, leadNs, first;
  };
  for (const Case c : {Case{100 * kMs, 0, 50 * kMs, 11},         // arrives within the step
                       Case{100 * kMs, 60 * kMs, 50 * kMs, 12},  // the leader's step ends first
                       Case{10 * kMs, 0, 200 * kMs, 30},         // 20 steps pass meanwhile
                       Case{10 * kMs, 5000 * kMs, 0, 11},        // an overdue step counts as one
                       Case{-1, 0, 200 * kMs, 11}}) {            // step time unknown
    const auto plans = planAttach({rank(1, 10, c.stepNs, c.ageNs)}, steps(1, c.leadNs));
    EXPECT_EQ(plans[0].firstStep, c.first) << c.stepNs << " " << c.ageNs << " " << c.leadNs;
  }
}

TEST(AttachPlan, RunsAreAlignedEachOnItsOwn) {
  const auto plans = planAttach({rank(1, 5, 100 * kMs, 0, "a"), rank(2, 500, 100 * kMs, 0, "b"),
                                 rank(3, 6, 100 * kMs, 0, "a")},
                                steps(3));
  EXPECT_EQ(plans[0].firstStep, 7);
  EXPECT_EQ(plans[1].firstStep, 501);
  EXPECT_EQ(plans[1].kind, PlannedStart::Kind::Steps);  // not "far behind" run a's leader
  EXPECT_EQ(plans[2].firstStep, 7);
}

TEST(AttachPlan, RankWithoutStepMarkersRecordsNStepsWorthOfTime) {
  const auto plans =
      planAttach({rank(1, 4, 100 * kMs), rank(2, 4, 300 * kMs), rank(3, -1, -1)}, steps(2));
  EXPECT_EQ(plans[0].kind, PlannedStart::Kind::Steps);
  EXPECT_EQ(plans[2].kind, PlannedStart::Kind::NoStepMarkers);
  EXPECT_EQ(plans[2].command.steps, 0);
  EXPECT_EQ(plans[2].command.fromStep, -1);
  EXPECT_EQ(plans[2].command.durationNs, 600 * kMs);  // the slowest rank's step time × N

  // Nobody has step markers: a second per step.
  const auto none = planAttach({rank(1, -1, -1), rank(2, -1, -1)}, steps(3));
  EXPECT_EQ(none[0].kind, PlannedStart::Kind::NoStepMarkers);
  EXPECT_EQ(none[0].command.durationNs, 3 * kUnknownStepNs);
}

TEST(AttachPlan, RankFarBehindIsNotWaitedFor) {
  const auto plans =
      planAttach({rank(1, 40), rank(2, 40 - kMaxStepLag), rank(3, 40 - kMaxStepLag - 1)}, steps(2));
  EXPECT_EQ(plans[0].kind, PlannedStart::Kind::Steps);
  EXPECT_EQ(plans[1].kind, PlannedStart::Kind::Steps);
  EXPECT_EQ(plans[1].firstStep, 41);
  EXPECT_EQ(plans[2].kind, PlannedStart::Kind::FarBehind);
  EXPECT_EQ(plans[2].lag, kMaxStepLag + 1);
  EXPECT_EQ(plans[2].command.durationNs, 200 * kMs);
}

TEST(AttachPlan, DurationStartsAtTheSameStepWhereThereAreStepMarkers) {
  AttachRequest r;
  r.durationNs = 1500 * kMs;
  const auto plans = planAttach({rank(1, 8), rank(2, 9), rank(3, -1, -1)}, r);
  EXPECT_EQ(plans[0].kind, PlannedStart::Kind::DurationAtStep);
  EXPECT_EQ(plans[0].command.fromStep, 10);
  EXPECT_EQ(plans[0].command.durationNs, 1500 * kMs);
  EXPECT_EQ(plans[0].command.steps, 0);
  EXPECT_EQ(plans[1].command.fromStep, 10);
  EXPECT_EQ(plans[2].kind, PlannedStart::Kind::DurationNow);
  EXPECT_EQ(plans[2].command.fromStep, -1);
  EXPECT_EQ(plans[2].command.durationNs, 1500 * kMs);
}

}  // namespace
}  // namespace bubblescope::control
