// Fault flags: the forms the engine accepts, and one clear sentence for the ones it does not.
#include "reference_engine/executor/faults.h"

#include <gtest/gtest.h>

#include <cctype>

namespace bubblescope::engine {
namespace {

const FaultBounds kBounds{4, 8, 3};  // p, m, steps

TEST(FaultFlags, SlowStageParsesStageAndFactor) {
  SlowStage s = parseSlowStage("2:1.5", kBounds);
  EXPECT_EQ(s.stage, 2);
  EXPECT_DOUBLE_EQ(s.factor, 1.5);
}

TEST(FaultFlags, StallStepIsOptional) {
  Stall every = parseStall("--stall", "1:5:20", kBounds);
  EXPECT_EQ(every.stage, 1);
  EXPECT_EQ(every.mb, 5);
  EXPECT_DOUBLE_EQ(every.ms, 20);
  EXPECT_FALSE(every.step.has_value());
  Stall once = parseStall("--host-stall", "3:0:2.5:2", kBounds);
  ASSERT_TRUE(once.step.has_value());
  EXPECT_EQ(*once.step, 2);
  EXPECT_DOUBLE_EQ(once.ms, 2.5);
}

TEST(FaultFlags, CommDelayAndCrashParse) {
  CommDelay d = parseCommDelay("0:7", kBounds);
  EXPECT_EQ(d.stage, 0);
  EXPECT_DOUBLE_EQ(d.ms, 7);
  Crash c = parseCrash("2:3", kBounds);
  EXPECT_EQ(c.stage, 2);
  EXPECT_EQ(c.mb, 3);
  EXPECT_EQ(c.step, 0);
  EXPECT_EQ(parseCrash("2:3:1", kBounds).step, 1);
}

struct BadFlag {
  const char* flag;
  const char* text;
  const char* mentions;  // the message must name this
};

void PrintTo(const BadFlag& bad, std::ostream* os) {
  *os << bad.flag << " " << bad.text;
}

class MalformedFaultFlag : public ::testing::TestWithParam<BadFlag> {};

TEST_P(MalformedFaultFlag, IsRejectedWithAMessageNamingFlagAndProblem) {
  const BadFlag& bad = GetParam();
  FaultFlags flags;
  const std::string flag = bad.flag;
  if (flag == "--slow-stage") flags.slowStage = {bad.text};
  if (flag == "--stall") flags.stall = {bad.text};
  if (flag == "--host-stall") flags.hostStall = {bad.text};
  if (flag == "--comm-delay") flags.commDelay = {bad.text};
  if (flag == "--crash") flags.crash = {bad.text};
  if (flag == "--late-start") flags.lateStart = {bad.text};
  try {
    parseFaults(flags, kBounds);
    FAIL() << flag << " " << bad.text << " was accepted";
  } catch (const FaultSpecError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(flag), std::string::npos) << what;
    EXPECT_NE(what.find(bad.mentions), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, MalformedFaultFlag,
    ::testing::Values(BadFlag{"--slow-stage", "2", "expected STAGE:FACTOR"},
                      BadFlag{"--slow-stage", "2:1.5:3", "expected STAGE:FACTOR"},
                      BadFlag{"--slow-stage", "x:1.5", "stage 'x' is not an integer"},
                      BadFlag{"--slow-stage", "4:1.5", "stage 4 is out of range (p=4"},
                      BadFlag{"--slow-stage", "-1:1.5", "out of range"},
                      BadFlag{"--slow-stage", "1:0", "factor must be above 0"},
                      BadFlag{"--slow-stage", "1:-2", "factor must be above 0"},
                      BadFlag{"--slow-stage", "1:fast", "factor 'fast' is not a number"},
                      BadFlag{"--slow-stage", "1:inf", "is not a number"},
                      BadFlag{"--slow-stage", "1:1e300", "factor must be above 0, at most 1000"},
                      BadFlag{"--stall", "1:5:1e300", "duration must be above 0 ms, at most a day"},
                      BadFlag{"--comm-delay", "1:1e300", "delay must be above 0 ms, at most a day"},
                      BadFlag{"--stall", "a:b:c", "stage 'a' is not an integer"},
                      BadFlag{"--stall", "1:5", "expected STAGE:MB:MS"},
                      BadFlag{"--stall", "1:8:20", "microbatch 8 is out of range (m=8"},
                      BadFlag{"--stall", "1:5:0", "duration must be above 0"},
                      BadFlag{"--stall", "1:5:20:3", "step 3 is out of range (steps=3"},
                      BadFlag{"--host-stall", "1:5:", "duration '' is not a number"},
                      BadFlag{"--comm-delay", "1", "expected STAGE:MS"},
                      BadFlag{"--comm-delay", "1:-5", "delay must be above 0"},
                      BadFlag{"--crash", "9:0", "stage 9 is out of range"},
                      BadFlag{"--crash", "1:2:3:4", "expected STAGE:MB"},
                      // The @FROM[-TO] suffix (steps=3 here).
                      BadFlag{"--slow-stage", "1:2@",
                              "first step '' is not an integer; expected "
                              "STAGE:FACTOR[@FROM[-TO]]"},
                      BadFlag{"--slow-stage", "1:2@x", "first step 'x' is not an integer"},
                      BadFlag{"--slow-stage", "1:2@1@2", "first step '1@2' is not an integer"},
                      BadFlag{"--slow-stage", "1:2@1-", "end step '' is not an integer"},
                      BadFlag{"--slow-stage", "1:2@0-1-2", "end step '1-2' is not an integer"},
                      BadFlag{"--slow-stage", "1:2@3", "first step 3 is out of range (steps=3"},
                      BadFlag{"--slow-stage", "1:2@-1", "first step -1 is out of range"},
                      BadFlag{"--slow-stage", "1:2@2-2",
                              "the step range 2-2 is empty: TO is "
                              "exclusive, so it must be above FROM"},
                      BadFlag{"--slow-stage", "1:2@2-1", "the step range 2-1 is empty"},
                      BadFlag{"--slow-stage", "1:2@0-4",
                              "end step 4 is beyond the run (steps=3; "
                              "TO is exclusive, so at most 3)"},
                      BadFlag{"--slow-stage", "1@1", "expected STAGE:FACTOR[@FROM[-TO]]"},
                      BadFlag{"--slow-stage", "1:0@1", "factor must be above 0"},
                      BadFlag{"--stall", "1:5:20:1@0-2",
                              "give either :STEP (one step) or "
                              "@FROM[-TO] (a range), not both"},
                      BadFlag{"--stall", "1:5:20@1-x", "end step 'x' is not an integer"},
                      BadFlag{"--host-stall", "1:5:20@5", "first step 5 is out of range"},
                      BadFlag{"--host-stall", "1:5@1", "expected STAGE:MB:MS"},
                      BadFlag{"--comm-delay", "1:5@2-1", "the step range 2-1 is empty"},
                      BadFlag{"--comm-delay", "1@2", "expected STAGE:MS[@FROM[-TO]]"},
                      BadFlag{"--comm-delay", "1:5@9", "first step 9 is out of range (steps=3"},
                      // --crash takes one step, not a range: the '@' is part of a field.
                      BadFlag{"--crash", "1:2@1", "microbatch '2@1' is not an integer"},
                      BadFlag{"--late-start", "3", "expected STAGE:SECONDS"},
                      BadFlag{"--late-start", "4:2", "stage 4 is out of range (p=4"},
                      BadFlag{"--late-start", "1:0", "delay must be above 0 s, at most a day"},
                      BadFlag{"--late-start", "1:1e9", "delay must be above 0 s, at most a day"},
                      BadFlag{"--late-start", "1:soon", "delay 'soon' is not a number"}),
    [](const ::testing::TestParamInfo<BadFlag>& param) {
      std::string name = std::string(param.param.flag + 2) + "_" + param.param.text;
      for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name + "_" + std::to_string(param.index);
    });

TEST(FaultFlags, LateStartParsesStageAndSecondsOncePerStage) {
  const LateStart l = parseLateStart("3:2.5", kBounds);
  EXPECT_EQ(l.stage, 3);
  EXPECT_DOUBLE_EQ(l.seconds, 2.5);
  FaultFlags flags;
  flags.lateStart = {"3:2.5", "1:4"};
  const Faults f = parseFaults(flags, kBounds);
  EXPECT_DOUBLE_EQ(f.lateStartSeconds(3), 2.5);
  EXPECT_DOUBLE_EQ(f.lateStartSeconds(1), 4);
  EXPECT_DOUBLE_EQ(f.lateStartSeconds(0), 0);
  flags.lateStart = {"3:2.5", "3:1"};
  EXPECT_THROW(parseFaults(flags, kBounds), FaultSpecError);
}

TEST(FaultFlags, AStageGivenTwiceToSlowStageIsRejected) {
  FaultFlags flags;
  flags.slowStage = {"1:2", "1:3"};
  EXPECT_THROW(parseFaults(flags, kBounds), FaultSpecError);
}

TEST(FaultFlags, JitterMustBeAPercentageBelowHundred) {
  FaultFlags flags;
  flags.jitterPct = 150;
  EXPECT_THROW(parseFaults(flags, kBounds), FaultSpecError);
  flags.jitterPct = -1;
  EXPECT_THROW(parseFaults(flags, kBounds), FaultSpecError);
  flags.jitterPct = 20;
  EXPECT_DOUBLE_EQ(parseFaults(flags, kBounds).jitterPct, 20);
}

TEST(FaultFlags, RepeatedStallsAreAllKept) {
  FaultFlags flags;
  flags.stall = {"1:5:20", "2:0:3:1"};
  flags.slowStage = {"0:2", "3:0.5"};
  Faults f = parseFaults(flags, kBounds);
  EXPECT_EQ(f.stalls.size(), 2u);
  for (int step = 0; step < kBounds.steps; ++step) {
    EXPECT_DOUBLE_EQ(f.slowFactor(0, step), 2);
    EXPECT_DOUBLE_EQ(f.slowFactor(3, step), 0.5);
    EXPECT_DOUBLE_EQ(f.slowFactor(1, step), 1);
  }
}

// Steps FROM..TO-1: a fault with an onset and an end a live watcher can be checked against.
const FaultBounds kLongRun{4, 8, 12};  // p, m, steps

TEST(FaultSteps, RangeSuffixGivesFromAndExclusiveTo) {
  SlowStage open = parseSlowStage("2:1.5@4", kLongRun);
  EXPECT_DOUBLE_EQ(open.factor, 1.5);
  ASSERT_TRUE(open.steps.has_value());
  EXPECT_EQ(open.steps->from, 4);
  EXPECT_FALSE(open.steps->to.has_value());
  SlowStage closed = parseSlowStage("2:1.5@4-6", kLongRun);
  ASSERT_TRUE(closed.steps.has_value());
  EXPECT_EQ(closed.steps->from, 4);
  EXPECT_EQ(closed.steps->to, 6);
  // TO may be the step count: to the run's end, said explicitly.
  EXPECT_EQ(parseSlowStage("2:1.5@0-12", kLongRun).steps->to, 12);
  EXPECT_FALSE(parseSlowStage("2:1.5", kLongRun).steps.has_value());

  CommDelay d = parseCommDelay("1:5@3-9", kLongRun);
  EXPECT_DOUBLE_EQ(d.ms, 5);
  ASSERT_TRUE(d.steps.has_value());
  EXPECT_EQ(d.steps->from, 3);
  EXPECT_EQ(d.steps->to, 9);
  EXPECT_FALSE(parseCommDelay("1:5", kLongRun).steps.has_value());
}

TEST(FaultSteps, StallsTakeARangeOrOneStepButNotBoth) {
  Stall ranged = parseStall("--stall", "1:5:20@2-4", kLongRun);
  EXPECT_EQ(ranged.mb, 5);
  EXPECT_DOUBLE_EQ(ranged.ms, 20);
  EXPECT_FALSE(ranged.step.has_value());
  ASSERT_TRUE(ranged.steps.has_value());
  EXPECT_EQ(ranged.steps->from, 2);
  EXPECT_EQ(ranged.steps->to, 4);
  Stall host = parseStall("--host-stall", "3:0:2.5@7", kLongRun);
  ASSERT_TRUE(host.steps.has_value());
  EXPECT_EQ(host.steps->from, 7);
  EXPECT_FALSE(host.steps->to.has_value());
  // The :STEP form is as it was.
  Stall once = parseStall("--stall", "1:5:20:2", kLongRun);
  EXPECT_EQ(once.step, 2);
  EXPECT_FALSE(once.steps.has_value());
}

TEST(FaultSteps, RangeContainsFromButNotTo) {
  const StepRange closed{3, 6}, open{8, std::nullopt};
  for (int step = 0; step < 12; ++step) {
    EXPECT_EQ(closed.contains(step), step >= 3 && step < 6) << step;
    EXPECT_EQ(open.contains(step), step >= 8) << step;
  }
}

TEST(FaultSteps, RangesOverlapOnlyWhenTheyShareAStep) {
  struct Case {
    StepRange a, b;
    bool overlap;
  };
  const Case cases[] = {
      {{3, 6}, {6, 8}, false},                       // TO is exclusive: adjacent
      {{3, 6}, {5, 8}, true},                        // share step 5
      {{3, 6}, {0, 3}, false},                       // adjacent, the other way
      {{3, 6}, {4, 5}, true},                        // inside
      {{3, std::nullopt}, {0, 3}, false},            // open range after a closed one
      {{3, std::nullopt}, {10, 11}, true},           // an open range covers every later step
      {{3, std::nullopt}, {5, std::nullopt}, true},  // two open ranges always meet
  };
  for (const Case& c : cases) {
    EXPECT_EQ(c.a.overlaps(c.b), c.overlap) << c.a.from << " vs " << c.b.from;
    EXPECT_EQ(c.b.overlaps(c.a), c.overlap) << c.b.from << " vs " << c.a.from;
  }
}

TEST(FaultSteps, SlowFactorAndCommDelayAreLookedUpPerStep) {
  FaultFlags flags;
  flags.slowStage = {"1:1.5@3-6", "1:2@8", "2:3"};
  flags.commDelay = {"0:4@2-4", "0:7@10-12"};
  const Faults f = parseFaults(flags, kLongRun);
  //                                  step: 0  1  2  3    4    5    6  7  8  9  10 11
  const double stage1[12] = {1, 1, 1, 1.5, 1.5, 1.5, 1, 1, 2, 2, 2, 2};
  const double delay0[12] = {0, 0, 4, 4, 0, 0, 0, 0, 0, 0, 7, 7};
  for (int step = 0; step < 12; ++step) {
    EXPECT_DOUBLE_EQ(f.slowFactor(1, step), stage1[step]) << "step " << step;
    EXPECT_DOUBLE_EQ(f.slowFactor(2, step), 3) << "an unranged fault applies to every step";
    EXPECT_DOUBLE_EQ(f.slowFactor(0, step), 1) << "step " << step;
    EXPECT_DOUBLE_EQ(f.commDelayMs(0, step), delay0[step]) << "step " << step;
    EXPECT_DOUBLE_EQ(f.commDelayMs(1, step), 0) << "step " << step;
  }
}

TEST(FaultSteps, StallHitsItsStageAndMicrobatchInItsStepsOnly) {
  const Stall ranged = parseStall("--stall", "1:5:20@2-4", kLongRun);
  const Stall once = parseStall("--stall", "1:5:20:3", kLongRun);
  const Stall every = parseStall("--stall", "1:5:20", kLongRun);
  for (int step = 0; step < 12; ++step) {
    EXPECT_EQ(ranged.hits(1, step, 5), step == 2 || step == 3) << step;
    EXPECT_EQ(once.hits(1, step, 5), step == 3) << step;
    EXPECT_TRUE(every.hits(1, step, 5)) << step;
    EXPECT_FALSE(ranged.hits(1, step, 4)) << "another microbatch";
    EXPECT_FALSE(ranged.hits(0, step, 5)) << "another stage";
  }
}

TEST(FaultSteps, AStageMayRepeatWithRangesThatDoNotOverlap) {
  FaultFlags flags;
  flags.slowStage = {"1:1.5@3-6", "1:2@6-8", "1:3@10"};
  flags.commDelay = {"2:1@0-1", "2:2@1-2"};
  const Faults f = parseFaults(flags, kLongRun);
  EXPECT_EQ(f.slowStages.size(), 3u);
  EXPECT_EQ(f.commDelays.size(), 2u);
}

struct Overlap {
  const char* flag;
  std::vector<std::string> texts;
  const char* mentions;
};

void PrintTo(const Overlap& o, std::ostream* os) {
  *os << o.flag;
  for (const auto& t : o.texts) *os << " " << t;
}

class OverlappingRanges : public ::testing::TestWithParam<Overlap> {};

TEST_P(OverlappingRanges, AreRejectedNamingBothFlagsAndTheStepsTheFirstCovers) {
  const Overlap& o = GetParam();
  FaultFlags flags;
  (std::string(o.flag) == "--slow-stage" ? flags.slowStage : flags.commDelay) = o.texts;
  try {
    parseFaults(flags, kLongRun);
    FAIL() << "accepted";
  } catch (const FaultSpecError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(std::string(o.flag) + " '" + o.texts.back() + "': ", 0), 0u) << what;
    EXPECT_NE(what.find(o.mentions), std::string::npos) << what;
    EXPECT_NE(what.find("a stage may repeat only with @FROM-TO ranges that do not overlap"),
              std::string::npos)
        << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, OverlappingRanges,
    ::testing::Values(
        Overlap{"--slow-stage",
                {"1:1.5@3-6", "1:2@5"},
                "stage 1 is given twice for the same steps ('1:1.5@3-6' covers steps 3..5)"},
        Overlap{"--slow-stage", {"1:2", "1:3@4"}, "('1:2' covers every step)"},
        Overlap{"--slow-stage", {"1:2@4", "1:3@9-11"}, "('1:2@4' covers steps 4 on)"},
        Overlap{"--slow-stage", {"1:2", "1:3"}, "stage 1 is given twice"},
        Overlap{"--comm-delay",
                {"0:3@2-4", "2:1", "0:5@0-3"},
                "stage 0 is given twice for the same steps ('0:3@2-4' covers steps 2..3)"}),
    [](const ::testing::TestParamInfo<Overlap>& param) {
      return std::string(param.param.flag[2] == 's' ? "slow" : "delay") + "_" +
             std::to_string(param.index);
    });

}  // namespace
}  // namespace bubblescope::engine
