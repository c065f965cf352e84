// The analysis on Kineto traces shaped as PyTorch's profiler writes them, against the generator's
// truth: per stage idle within 2% of the truth, the dominant avoidable class, the culprit, S
// within 2%.
#include <gtest/gtest.h>

#include "tests/support/temp_dir.h"
#include "tests/tracegen/cases.h"
#include "tests/tracegen/expect_found.h"
#include "tests/tracegen/stack_analysis.h"

namespace bubblescope::tracegen {
namespace {

class KinetoCases : public ::testing::TestWithParam<Case> {};

TEST_P(KinetoCases, AnalysisFindsWhatTheGeneratorDid) {
  testing::TempDir dir;
  const StackRun run = analyseAs(Stack::Kineto, GetParam().spec, dir.path());
  expectFound(run, GetParam());
}

INSTANTIATE_TEST_SUITE_P(StackAnalysis, KinetoCases, ::testing::ValuesIn(standardCases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

}  // namespace
}  // namespace bubblescope::tracegen
