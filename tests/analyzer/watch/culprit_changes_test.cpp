// Culprits that persist are reported when they start and when they end, once each; a one-step
// hiccup starts nothing (issue 30).
#include "analyzer/watch/culprit_changes.h"

#include <gtest/gtest.h>

namespace bubblescope::analysis::watch {
namespace {

StepReading reading(int64_t step, std::optional<int> slowStage) {
  StepReading r;
  r.step = step;
  if (slowStage) {
    StepCulprit c;
    c.cause = IdleClass::Imbalance;
    c.stage = *slowStage;
    c.op = OpKind::F;
    c.ratio = 1.5;
    c.cost = 10'000'000 + step;  // the cost moves from step to step: not part of the key
    r.culprit = c;
  }
  return r;
}

TEST(CulpritChanges, AStageThatTurnsSlowStartsAfterTwoStepsAndEndsAfterTwoWithout) {
  CulpritChanges changes;
  std::vector<CulpritChange> seen;
  const std::vector<std::optional<int>> byStep = {std::nullopt, std::nullopt, 2,           2, 2, 2,
                                                  std::nullopt, std::nullopt, std::nullopt};
  for (size_t i = 0; i < byStep.size(); ++i) {
    for (const CulpritChange& c : changes.observe(reading(static_cast<int64_t>(i), byStep[i]))) {
      seen.push_back(c);
    }
    if (i == 4) {
      EXPECT_EQ(changes.active().size(), 1u);
    }
  }
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_TRUE(seen[0].started);
  EXPECT_EQ(seen[0].atStep, 3);
  EXPECT_EQ(seen[0].firstStep, 2);
  EXPECT_EQ(seen[0].culprit.stage, 2);
  EXPECT_FALSE(seen[1].started);
  EXPECT_EQ(seen[1].atStep, 7);
  EXPECT_EQ(seen[1].firstStep, 2);
  EXPECT_EQ(seen[1].lastStep, 5);
  EXPECT_TRUE(changes.active().empty());
  EXPECT_EQ(changeLine(seen[0]),
            "step 3  started: imbalance: stage 2 F +10.0 ms (1.50x), from step 2");
  EXPECT_EQ(changeLine(seen[1]), "step 7  ended: imbalance: stage 2, steps 2-5");
}

TEST(CulpritChanges, AOneStepHiccupStartsNothing) {
  CulpritChanges changes;
  for (int64_t s = 0; s < 8; ++s) {
    const std::optional<int> slow = (s == 3 || s == 5) ? std::optional<int>(1) : std::nullopt;
    EXPECT_TRUE(changes.observe(reading(s, slow)).empty()) << "step " << s;
  }
}

TEST(CulpritChanges, AOneStepGapInsideAFaultDoesNotEndIt) {
  CulpritChanges changes;
  std::vector<CulpritChange> seen;
  const std::vector<std::optional<int>> byStep = {0, 0, 0, std::nullopt, 0, 0};
  for (size_t i = 0; i < byStep.size(); ++i) {
    for (const CulpritChange& c : changes.observe(reading(static_cast<int64_t>(i), byStep[i]))) {
      seen.push_back(c);
    }
  }
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_TRUE(seen[0].started);
  EXPECT_EQ(changes.active().size(), 1u);
}

TEST(CulpritChanges, ANewCulpritEndsTheOldAndStartsItself) {
  CulpritChanges changes;
  std::vector<CulpritChange> seen;
  const std::vector<std::optional<int>> byStep = {1, 1, 1, 3, 3, 3};
  for (size_t i = 0; i < byStep.size(); ++i) {
    for (const CulpritChange& c : changes.observe(reading(static_cast<int64_t>(i), byStep[i]))) {
      seen.push_back(c);
    }
  }
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_TRUE(seen[0].started);
  EXPECT_EQ(seen[0].culprit.stage, 1);
  // Stage 3 has started at step 4; stage 1, unnamed at steps 3 and 4, ends there too, first.
  EXPECT_FALSE(seen[1].started);
  EXPECT_EQ(seen[1].culprit.stage, 1);
  EXPECT_EQ(seen[1].atStep, 4);
  EXPECT_TRUE(seen[2].started);
  EXPECT_EQ(seen[2].culprit.stage, 3);
  EXPECT_EQ(seen[2].atStep, 4);
}

}  // namespace
}  // namespace bubblescope::analysis::watch
