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
                      BadFlag{"--crash", "1:2:3:4", "expected STAGE:MB"}),
    [](const ::testing::TestParamInfo<BadFlag>& param) {
      std::string name = std::string(param.param.flag + 2) + "_" + param.param.text;
      for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name + "_" + std::to_string(param.index);
    });

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
  EXPECT_DOUBLE_EQ(f.slowFactor(0), 2);
  EXPECT_DOUBLE_EQ(f.slowFactor(3), 0.5);
  EXPECT_DOUBLE_EQ(f.slowFactor(1), 1);
}

}  // namespace
}  // namespace bubblescope::engine
