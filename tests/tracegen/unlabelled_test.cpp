// Jobs nobody labelled: the same generated run written with and without its `PP:` op labels, by
// each stack. The pipeline inferred from p2p traffic must give the labelled answer: the same
// stages, the same idle per class within 2%, the same dominant class and culprit, S within 2%;
// and the report must say the ops were inferred, with high confidence for these 1F1B runs.
#include <gtest/gtest.h>

#include <tuple>

#include "tests/support/temp_dir.h"
#include "tests/tracegen/cases.h"
#include "tests/tracegen/expect_found.h"
#include "tests/tracegen/stack_analysis.h"

namespace bubblescope::tracegen {
namespace {

using analysis::PipelineResult;

class Unlabelled : public ::testing::TestWithParam<std::tuple<Stack, Case>> {};

TEST_P(Unlabelled, InferredPipelineGivesTheLabelledAnswer) {
  const auto& [stack, c] = GetParam();
  testing::TempDir a, b;
  const StackRun labelled = analyseAs(stack, c.spec, a.path(), Labels::Labelled);
  const StackRun unlabelled = analyseAs(stack, c.spec, b.path(), Labels::Unlabelled);
  ASSERT_FALSE(labelled.result.inference.fromP2p);
  ASSERT_TRUE(unlabelled.result.inference.fromP2p) << describe(unlabelled);
  EXPECT_EQ(unlabelled.result.topologySource, "p2p");
  EXPECT_EQ(unlabelled.result.inference.confidence, "high") << unlabelled.result.inference.evidence;
  EXPECT_NE(unlabelled.result.inference.evidence.find("every step matched the 1F1B order"),
            std::string::npos)
      << unlabelled.result.inference.evidence;

  ASSERT_EQ(unlabelled.result.pipelines.size(), 1u);
  const PipelineResult& want = labelled.result.pipelines[0];
  const PipelineResult& got = unlabelled.result.pipelines[0];
  ASSERT_EQ(got.stages.size(), want.stages.size());
  ASSERT_EQ(got.steps.size(), want.steps.size());
  EXPECT_EQ(got.schedule.name, want.schedule.name);
  EXPECT_EQ(got.schedule.m, want.schedule.m);
  for (size_t s = 0; s < got.stages.size(); ++s) {
    EXPECT_NEAR(got.stages[s].total.idle, want.stages[s].total.idle,
                0.02 * want.stages[s].total.span)
        << "stage " << s;
  }
  EXPECT_NEAR(got.slowdown, want.slowdown, 0.02 * want.slowdown);
  // A fault-free run's largest avoidable class is noise (under 1% of the span: expectFound).
  expectTheLabelledAnswer(got, want, c.dominant.has_value());
  // And against the generator's truth, as the labelled runs are.
  expectFound(unlabelled, c);
}

// With no step or optimizer range either, the steps come from the collectives that end them.
TEST_P(Unlabelled, StepsWithoutMarkersComeFromTheCollectivesThatEndThem) {
  const auto& [stack, c] = GetParam();
  testing::TempDir a, b;
  const StackRun labelled = analyseAs(stack, c.spec, a.path(), Labels::Labelled);
  const StackRun bare = analyseAs(stack, c.spec, b.path(), Labels::Bare);
  ASSERT_TRUE(bare.result.inference.fromP2p);
  EXPECT_EQ(bare.result.inference.confidence, "high") << bare.result.inference.evidence;
  const PipelineResult& want = labelled.result.pipelines.at(0);
  const PipelineResult& got = bare.result.pipelines.at(0);
  ASSERT_EQ(got.steps.size(), want.steps.size());
  EXPECT_EQ(got.schedule.name, want.schedule.name);
  EXPECT_EQ(got.schedule.m, want.schedule.m);
  EXPECT_NEAR(got.slowdown, want.slowdown, 0.02 * want.slowdown);
  // Within 5% of the span, not 2%: without step ranges a step's bounds come from its ops and
  // collectives, and a host stall at a step's start (Mix) moves work between steps (3% there).
  for (size_t s = 0; s < got.stages.size(); ++s) {
    EXPECT_NEAR(got.stages[s].total.idle, want.stages[s].total.idle,
                0.05 * want.stages[s].total.span)
        << "stage " << s;
  }
}

std::vector<Stack> stacks() {
  std::vector<Stack> s = {Stack::Kineto, Stack::Nsys};
#if UNLABELLED_AGENT
  s.push_back(Stack::Agent);
#endif
  return s;
}

const char* stackName(Stack s) {
  return s == Stack::Kineto ? "Kineto" : s == Stack::Nsys ? "Nsys" : "Agent";
}

INSTANTIATE_TEST_SUITE_P(StackAnalysis, Unlabelled,
                         ::testing::Combine(::testing::ValuesIn(stacks()),
                                            ::testing::ValuesIn(standardCases())),
                         [](const auto& i) {
                           return std::string(stackName(std::get<0>(i.param))) +
                                  std::get<1>(i.param).name;
                         });

}  // namespace
}  // namespace bubblescope::tracegen
