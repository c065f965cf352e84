// S_s's step times: each stage replayed with only its own measured costs, or, past
// kReplayEveryStage stages, bounded where its ops moved the step by under a thousandth.
#include "analyzer/idle/stage_alone.h"

#include <gtest/gtest.h>

#include <random>

namespace bubblescope::analysis {
namespace {

constexpr TimeNs kMs = 1'000'000;

struct Job {
  engine::Schedule order;
  engine::SimCosts ideal, measured;
};

// 1F1B with every op at 1 ms ideally; measured: a few microseconds of noise on every op
// (seeded), and stage `slow` at 1.5x.
Job job(int p, int m, int slow, unsigned seed) {
  Job j{engine::Schedule::oneF1B(p, m), {}, {}};
  std::mt19937 rng(seed);
  std::uniform_int_distribution<TimeNs> noise(-5'000, 5'000);
  j.ideal.perOp.resize(p);
  j.measured.perOp.resize(p);
  for (int s = 0; s < p; ++s) {
    for (size_t i = 0; i < j.order.stages[s].size(); ++i) {
      j.ideal.perOp[s].push_back(kMs);
      j.measured.perOp[s].push_back(s == slow ? kMs * 3 / 2 : kMs + noise(rng));
    }
  }
  return j;
}

TimeNs replayedAlone(const engine::PreparedSchedule& order, const Job& j, int s) {
  engine::SimCosts costs = j.ideal;
  costs.perOp[s] = j.measured.perOp[s];
  return engine::simulate(order, costs).makespan;
}

// stageAloneMakespans lends the ideal costs: they come back as they were.
std::vector<StageAlone> aloneOf(const engine::PreparedSchedule& order, const Job& j, TimeNs ideal) {
  engine::SimCosts lent = j.ideal;
  auto alone = stageAloneMakespans(order, lent, j.measured, ideal);
  EXPECT_EQ(lent.perOp, j.ideal.perOp);
  return alone;
}

TEST(StageAlone, UpToTheLimitEveryStageIsReplayed) {
  const Job j = job(8, 16, 3, 1);
  const engine::PreparedSchedule order(j.order);
  const TimeNs ideal = engine::simulate(order, j.ideal).makespan;
  const auto alone = aloneOf(order, j, ideal);
  ASSERT_EQ(alone.size(), 8u);
  for (int s = 0; s < 8; ++s) {
    EXPECT_TRUE(alone[s].replayed) << s;
    EXPECT_EQ(alone[s].makespan, replayedAlone(order, j, s)) << s;
  }
  EXPECT_GT(alone[3].makespan, ideal + 10 * kMs);  // the slow stage's 16 F and 16 B
}

TEST(StageAlone, PastTheLimitANoisyStageIsBoundedAndASlowOneReplayed) {
  for (unsigned seed : {1u, 2u, 3u}) {
    const int p = 2 * kReplayEveryStage, m = 4, slow = 97;
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Job j = job(p, m, slow, seed);
    const engine::PreparedSchedule order(j.order);
    const TimeNs ideal = engine::simulate(order, j.ideal).makespan;
    const auto alone = aloneOf(order, j, ideal);
    int bounded = 0;
    for (int s = 0; s < p; ++s) {
      const TimeNs exact = replayedAlone(order, j, s);
      if (alone[s].replayed) {
        EXPECT_EQ(alone[s].makespan, exact) << s;
        continue;
      }
      ++bounded;
      // The middle of bounds a thousandth of the step wide: at most half of that off.
      EXPECT_LE(std::abs(alone[s].makespan - exact) * 2000, ideal) << s;
    }
    EXPECT_TRUE(alone[slow].replayed);
    EXPECT_EQ(alone[slow].makespan, replayedAlone(order, j, slow));
    // Every stage but the slow one: its 8 ops moved by 40 us at most, of a 262 ms step.
    EXPECT_EQ(bounded, p - 1);
  }
}

TEST(StageAlone, AStageAtItsIdealCostsIsTheIdealStep) {
  Job j = job(2 * kReplayEveryStage, 2, -1, 4);
  j.measured.perOp[5] = j.ideal.perOp[5];
  const engine::PreparedSchedule order(j.order);
  const TimeNs ideal = engine::simulate(order, j.ideal).makespan;
  const auto alone = aloneOf(order, j, ideal);
  EXPECT_EQ(alone[5].makespan, ideal);
}

}  // namespace
}  // namespace bubblescope::analysis
