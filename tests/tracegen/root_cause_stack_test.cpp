// Root cause first on a generated job as PyTorch's profiler writes it (issue 26, item 4): one
// late launch delays the later stages, and the list opens with the launch, every wait it caused
// folded under it, not with the largest of those waits.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "tests/support/temp_dir.h"
#include "tests/tracegen/stack_analysis.h"

namespace bubblescope::tracegen {
namespace {

using analysis::Gap;
using analysis::IdleClass;
using analysis::PipelineResult;
using analysis::RootCause;

constexpr TimeNs kMs = 1'000'000;

// Stage 0's host launches F1 of step 1 15 ms late (the standard HostStall case's place, which
// the host evidence finds on every stack): stages 1, 2 and 3 wait for it in turn.
TEST(RootCauseStack, LateLaunchComesFirstWithItsKnockOnsOnTheLaterStages) {
  JobSpec spec;
  spec.lateLaunches.push_back({OpId{0, 1, PassKind::F, 1}, 15 * kMs});
  testing::TempDir dir;
  const StackRun run = analyseAs(Stack::Kineto, spec, dir.path());
  const PipelineResult& pl = run.result.pipelines.at(0);
  ASSERT_FALSE(pl.rootCauses.empty());
  const RootCause& first = pl.rootCauses[0];
  EXPECT_EQ(first.id.cause, IdleClass::HostStall) << first.text;
  EXPECT_EQ(first.id.stage, 0) << first.text;
  EXPECT_EQ(first.id.op, (engine::Op{engine::OpKind::F, 1, 0})) << first.text;

  ASSERT_EQ(first.own.size(), 1u) << first.text;
  const Gap& own = pl.gaps[first.own[0]];
  EXPECT_EQ(own.stage, 0);
  EXPECT_EQ(pl.ops[own.nextOp].op, (engine::Op{engine::OpKind::F, 1, 0}));
  std::set<int> knockOnStages;
  for (int g : first.knockOns) knockOnStages.insert(pl.gaps[g].stage);
  EXPECT_EQ(knockOnStages, (std::set<int>{1, 2, 3}));
  // The top gaps, largest first, are this launch and its knock-ons: one entry now. (The last is
  // a few microseconds of scheduling noise.)
  for (int g : pl.topGaps) {
    if (analysis::avoidableIdle(pl.gaps[g]) < kMs) continue;
    EXPECT_TRUE(std::count(first.own.begin(), first.own.end(), g) +
                    std::count(first.knockOns.begin(), first.knockOns.end(), g) >
                0)
        << pl.gaps[g].blame.text;
  }
  for (size_t i = 1; i < pl.rootCauses.size(); ++i) {
    EXPECT_LT(pl.rootCauses[i].idle, kMs) << pl.rootCauses[i].text;
  }
  // The pipeline catches up part of the delay in its steady phase: the step is longer by less
  // than the launch was late, and that is what removing the late launch wins.
  EXPECT_GT(first.win, 5 * kMs);
  EXPECT_LE(first.win, own.idle);
}

}  // namespace
}  // namespace bubblescope::tracegen
