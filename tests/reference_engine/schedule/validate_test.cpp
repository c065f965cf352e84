// validate() and the runnability checks: they pass the generators (see generators_test) and
// catch each kind of broken order with a sentence naming the op at fault.
#include <gtest/gtest.h>

#include <string>

#include "reference_engine/schedule/schedule.h"
#include "reference_engine/schedule/validate.h"

namespace bubblescope::engine {
namespace {

bool has(const std::vector<Problem>& problems, ProblemKind kind, const std::string& text) {
  for (const auto& p : problems) {
    if (p.kind == kind && p.message.find(text) != std::string::npos) return true;
  }
  return false;
}

std::string dump(const std::vector<Problem>& problems) {
  std::string text;
  for (const auto& p : problems) text += p.message + "\n";
  return text;
}

Schedule custom(int p, int m, std::vector<std::vector<Op>> stages) {
  Schedule s;
  s.p = p;
  s.m = m;
  s.stages = std::move(stages);
  return s;
}

constexpr Op F(int mb, int chunk = 0) {
  return {OpKind::F, mb, chunk};
}
constexpr Op BW(int mb, int chunk = 0) {
  return {OpKind::BW, mb, chunk};
}
constexpr Op B(int mb, int chunk = 0) {
  return {OpKind::B, mb, chunk};
}
constexpr Op W(int mb, int chunk = 0) {
  return {OpKind::W, mb, chunk};
}

TEST(Validate, CatchesCrossStageDeadlockAndNamesTheStuckOps) {
  // Stage 0 wants BW0 before F1; stage 1 wants F1 before BW0: each waits for the other.
  const Schedule s = custom(2, 2, {{F(0), BW(0), F(1), BW(1)}, {F(0), F(1), BW(0), BW(1)}});
  const auto problems = validate(s);
  ASSERT_EQ(problems.size(), 1u) << dump(problems);
  EXPECT_EQ(problems[0].kind, ProblemKind::Deadlock);
  EXPECT_NE(problems[0].message.find("stage 0 op #1 (BW0) waits for B0 of virtual stage 1"),
            std::string::npos)
      << problems[0].message;
  EXPECT_NE(problems[0].message.find("stage 1 op #1 (F1) waits for F1 of virtual stage 0"),
            std::string::npos)
      << problems[0].message;
  EXPECT_EQ(runnabilityProblems(s).size(), 1u);
}

TEST(Validate, CatchesBackwardOrderedBeforeItsOwnForward) {
  const Schedule s = custom(1, 1, {{BW(0), F(0)}});
  EXPECT_TRUE(has(validate(s), ProblemKind::Deadlock, "stage 0 op #0 (BW0) waits for F0"));
}

TEST(Validate, CatchesDuplicatedOp) {
  Schedule s = Schedule::oneF1B(2, 3);
  s.stages[1].push_back(F(2));
  const auto problems = validate(s);
  EXPECT_TRUE(has(problems, ProblemKind::Duplicate,
                  "stage 1 op #6 (F2) repeats F2 of virtual stage 1 (stage 1), already run by "
                  "stage 1 op #4 (F2)"))
      << dump(problems);
}

TEST(Validate, CatchesBwAndWForTheSameMicrobatch) {
  const Schedule s = custom(1, 1, {{F(0), BW(0), W(0)}});
  EXPECT_TRUE(has(validate(s), ProblemKind::Duplicate, "(W0) repeats W0"));
}

TEST(Validate, CatchesMissingWeightGradient) {
  const Schedule s = custom(1, 2, {{F(0), B(0), W(0), F(1), B(1)}});
  const auto problems = validate(s);
  ASSERT_EQ(problems.size(), 1u) << dump(problems);
  EXPECT_EQ(problems[0].kind, ProblemKind::Missing);
  EXPECT_EQ(problems[0].message, "W1 of virtual stage 0 (stage 0) never runs");
}

TEST(Validate, CatchesOpsOutOfRange) {
  EXPECT_TRUE(has(validate(custom(1, 1, {{F(0), F(0, 1), BW(0)}})), ProblemKind::OutOfRange,
                  "names chunk 1 of v=1"));
  EXPECT_TRUE(has(validate(custom(1, 1, {{F(0), F(1), BW(0)}})), ProblemKind::OutOfRange,
                  "names microbatch 1 of m=1"));
}

TEST(Validate, CatchesStageCountDifferentFromP) {
  EXPECT_TRUE(has(validate(custom(3, 1, {{F(0), BW(0)}})), ProblemKind::Shape,
                  "1 per-stage orders for p=3"));
}

TEST(Validate, CatchesActivationsAboveTheScheduleBound) {
  // GPipe's order (all forwards first) labelled 1F1B holds m > p activations on stage 0.
  Schedule s = Schedule::gpipe(2, 4);
  s.kind = ScheduleKind::OneF1B;
  EXPECT_TRUE(has(validate(s), ProblemKind::ActivationMemory,
                  "stage 0 holds 4 chunk activations at once, above the 1F1B bound of 2"));
}

TEST(Validate, IncompleteForwardOnlyOrderIsRunnableButNotValid) {
  const Schedule s = custom(2, 2, {{F(0), F(1)}, {F(0), F(1)}});
  EXPECT_EQ(dump(runnabilityProblems(s)), "");
  EXPECT_TRUE(has(validate(s), ProblemKind::Missing, "B0 of virtual stage 1 (stage 1) never runs"));
}

TEST(Validate, MissingOpsNamesWhatAStepThatDidNotFinishNeverRan) {
  // 1F1B on 2 stages, 3 microbatches: stage 1 stopped before its BW2 (a hang), so stage 0 never
  // got to BW2 either.
  Schedule s = Schedule::oneF1B(2, 3);
  for (auto& ops : s.stages) ops.pop_back();
  const auto problems = missingOps(s);
  // A missing BW is its two halves.
  EXPECT_EQ(
      dump(problems),
      "B2 of virtual stage 0 (stage 0) never runs\nW2 of virtual stage 0 (stage 0) never runs\n"
      "B2 of virtual stage 1 (stage 1) never runs\nW2 of virtual stage 1 (stage 1) never "
      "runs\n");
  EXPECT_EQ(problems[0].kind, ProblemKind::Missing);
  for (const char* name : {"gpipe", "1f1b", "interleaved", "zb-h1", "zb-h2", "zb-v"}) {
    EXPECT_EQ(dump(missingOps(Schedule::byName(name, 4, 8))), "") << name;
  }
  // Whole but deadlocked: every op is there, so nothing is missing (validate() finds the rest).
  EXPECT_EQ(
      dump(missingOps(custom(2, 2, {{F(0), BW(0), F(1), BW(1)}, {F(0), F(1), BW(0), BW(1)}}))), "");
}

TEST(Validate, RunnabilityCatchesAnInputThatNoStageRuns) {
  const Schedule s = custom(2, 1, {{}, {F(0)}});
  EXPECT_TRUE(has(runnabilityProblems(s), ProblemKind::MissingInput,
                  "stage 1 op #0 (F0) waits for F0 of virtual stage 0 (stage 0), which no stage "
                  "runs"));
}

TEST(Validate, ProblemListIsCappedAndSaysHowManyWereLeftOut) {
  const Schedule s = custom(1, 100, {{}});
  const auto problems = validate(s);
  ASSERT_EQ(problems.size(), kMaxProblems);
  EXPECT_NE(problems.back().message.find("(and 280 more problems)"), std::string::npos)
      << problems.back().message;
}

TEST(Validate, BoundsFollowEachSchedule) {
  EXPECT_EQ(inFlightBound(Schedule::gpipe(4, 8)), 8);
  EXPECT_EQ(inFlightBound(Schedule::oneF1B(4, 8)), 4);
  EXPECT_EQ(inFlightBound(Schedule::zbH1(4, 8)), 4);
  EXPECT_EQ(inFlightBound(Schedule::zbH2(4, 8)), 7);
  EXPECT_EQ(inFlightBound(Schedule::zbV(4, 8)), 8);
  EXPECT_EQ(inFlightBound(Schedule::interleaved1F1B(4, 8, 2)), 11);  // 2*3 + 4 + 1 chunks
  EXPECT_EQ(inFlightBound(custom(1, 1, {{F(0), BW(0)}})), std::nullopt);
}

}  // namespace
}  // namespace bubblescope::engine
