// A ZB-V job nobody labelled, on Kineto and nsys: the pipeline inferred from p2p traffic must be
// the V the labelled run finds: every op of both chunks (Ws included, which no call bounds) in the
// truth's order, each stage's idle and S within 2% of the labelled run's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "tests/support/temp_dir.h"
#include "tests/tracegen/cases.h"
#include "tests/tracegen/expect_found.h"
#include "tests/tracegen/stack_analysis.h"
#include "tests/tracegen/zb_v_order.h"

namespace bubblescope::tracegen {
namespace {

using analysis::OpKind;
using analysis::PipelineResult;

// (kind, chunk, mb) of an op, in the analyzer's terms.
using OpName = std::tuple<OpKind, int, int>;

OpKind kindOf(PassKind pass) {
  return pass == PassKind::F ? OpKind::F : pass == PassKind::B ? OpKind::B : OpKind::W;
}

class ZbVUnlabelled : public ::testing::TestWithParam<std::tuple<Stack, Case>> {};

TEST_P(ZbVUnlabelled, InferredPipelineIsTheLabelledV) {
  const auto& [stack, c] = GetParam();
  JobSpec spec = c.spec;
  spec.labelP2p = true;  // the labelled run's labels; withoutOpLabels drops them all
  testing::TempDir a, b;
  const StackRun labelled = analyseAs(stack, spec, a.path(), Labels::Labelled);
  const StackRun unlabelled = analyseAs(stack, spec, b.path(), Labels::Unlabelled);
  ASSERT_FALSE(labelled.result.inference.fromP2p);
  ASSERT_TRUE(unlabelled.result.inference.fromP2p) << describe(unlabelled);
  ASSERT_EQ(labelled.result.pipelines.size(), 1u);
  ASSERT_EQ(unlabelled.result.pipelines.size(), 1u) << describe(unlabelled);
  const PipelineResult& want = labelled.result.pipelines[0];
  const PipelineResult& got = unlabelled.result.pipelines[0];
  ASSERT_EQ(got.stages.size(), static_cast<size_t>(spec.p)) << describe(unlabelled);
  ASSERT_EQ(got.steps.size(), want.steps.size());
  EXPECT_EQ(got.schedule.name, want.schedule.name);
  EXPECT_EQ(got.schedule.v, 2);
  EXPECT_EQ(got.schedule.m, spec.m);

  // Every analysed step of every stage ran the truth's ops, in the truth's order.
  std::map<std::pair<int, int>, std::vector<const analysis::OpRecord*>> byStageStep;
  for (const analysis::OpRecord& o : got.ops) byStageStep[{o.stage, o.step}].push_back(&o);
  for (int s = 0; s < spec.p; ++s) {
    std::vector<OpName> truthOrder;
    for (const StageOp& o : zbVOrder(spec.p, spec.m, s)) {
      truthOrder.push_back({kindOf(o.pass), o.chunk, o.mb});
    }
    for (int k = 0; k < static_cast<int>(got.steps.size()); ++k) {
      auto ops = byStageStep[{s, k}];
      std::stable_sort(ops.begin(), ops.end(),
                       [](const auto* x, const auto* y) { return x->start < y->start; });
      std::vector<OpName> found;
      for (const auto* o : ops) found.push_back({o->op.kind, o->op.chunk, o->op.mb});
      EXPECT_EQ(found, truthOrder) << "stage " << s << " step " << k;
    }
  }

  for (size_t s = 0; s < got.stages.size(); ++s) {
    EXPECT_NEAR(got.stages[s].total.idle, want.stages[s].total.idle,
                0.02 * want.stages[s].total.idle)
        << "stage " << s;
  }
  // The same blame as the labelled run's, whatever that names (the V's own findings are
  // zb_v_stack_test's).
  expectTheLabelledAnswer(got, want, true);
  EXPECT_NEAR(got.slowdown, want.slowdown, 0.02 * want.slowdown);
  EXPECT_EQ(unlabelled.result.inference.confidence, "high") << unlabelled.result.inference.evidence;
  // The figures, for the log (docs/analysis.md quotes them).
  double worst = 0;
  for (size_t s = 0; s < got.stages.size(); ++s) {
    const double w = static_cast<double>(want.stages[s].total.idle);
    worst = std::max(worst, std::abs(static_cast<double>(got.stages[s].total.idle) - w) / w);
  }
  std::printf(
      "%s %s: S labelled %.4f, unlabelled %.4f, truth %.4f; worst stage idle error %.2f%%\n",
      stack == Stack::Kineto ? "Kineto" : "nsys", c.name.c_str(), want.slowdown, got.slowdown,
      labelled.truth.slowdown, 100 * worst);
}

const char* stackName(Stack s) {
  return s == Stack::Kineto ? "Kineto" : "Nsys";
}

INSTANTIATE_TEST_SUITE_P(StackAnalysis, ZbVUnlabelled,
                         ::testing::Combine(::testing::Values(Stack::Kineto, Stack::Nsys),
                                            ::testing::ValuesIn(zbVCases())),
                         [](const auto& i) {
                           return std::string(stackName(std::get<0>(i.param))) +
                                  std::get<1>(i.param).name;
                         });

}  // namespace
}  // namespace bubblescope::tracegen
