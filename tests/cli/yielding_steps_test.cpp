// A live watch's per-step analysis yields to the job: in an idle-class thread while the node has
// CPU to spare, in the caller's thread when it has none, and again in the caller's thread when the
// idle-class thread is late; each way, the step reads the same (cli/yielding_steps.h).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "analyzer/watch/step_reading.h"
#include "cli/yielding_steps.h"
#include "tests/analyzer/synthetic_run.h"

namespace bubblescope::cli {
namespace {

// A node whose CPUs, between two readings, were idle for `idlePerCore` of each 100 ticks a core.
struct FakeNode {
  uint64_t idlePerCore = 90;
  CpuTimes now{0, 0};
  std::optional<CpuTimes> operator()() {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    now.idle += idlePerCore * cores;
    now.total += 100u * cores;
    return now;
  }
};

std::shared_ptr<const traces::Run> run() {
  testing::SyntheticJob job;
  job.schedule = engine::Schedule::oneF1B(2, 4);
  job.steps = 4;
  return std::make_shared<const traces::Run>(testing::synthesize(job));
}

std::string said(const StepOutcome& o) {
  return o.reading ? analysis::watch::stepLine(*o.reading) : "not read: " + o.notRead;
}

TEST(YieldingSteps, AnIdleNodeReadsEachStepInAnIdleClassThreadTheSameWay) {
  const auto r = run();
  const analysis::AnalyzeOptions base;
  auto node = std::make_shared<FakeNode>();
  YieldingSteps steps(true, std::chrono::seconds(60), [node] { return (*node)(); });
  for (int64_t n = 1; n <= 3; ++n) {
    const StepOutcome o = steps.read(r, base, n);
    ASSERT_TRUE(o.reading) << o.notRead;
    EXPECT_EQ(said(o), said(readOneStep(*r, base, n)));
  }
  EXPECT_EQ(steps.inIdleClass(), 3);
  EXPECT_EQ(steps.readAgain(), 0);
}

TEST(YieldingSteps, ABusyNodeReadsInTheCallersThread) {
  const auto r = run();
  auto node = std::make_shared<FakeNode>();
  node->idlePerCore = 10;  // under half a core to spare
  YieldingSteps steps(true, std::chrono::seconds(60), [node] { return (*node)(); });
  const StepOutcome o = steps.read(r, {}, 2);
  EXPECT_EQ(said(o), said(readOneStep(*r, {}, 2)));
  EXPECT_EQ(steps.inIdleClass(), 0);
}

TEST(YieldingSteps, ALateIdleClassThreadIsOvertakenAndTheNodeTakenForBusy) {
  const auto r = run();
  auto node = std::make_shared<FakeNode>();
  // No patience at all: the idle-class thread is always late, so the caller reads the step too.
  YieldingSteps steps(true, std::chrono::milliseconds(0), [node] { return (*node)(); });
  const StepOutcome o = steps.read(r, {}, 1);
  EXPECT_EQ(said(o), said(readOneStep(*r, {}, 1)));
  EXPECT_EQ(steps.inIdleClass(), 1);
  EXPECT_LE(steps.readAgain(), 1);
  if (steps.readAgain() == 1) {
    // Until the next reading says otherwise, the next step stays in the caller's thread: the
    // readings come faster than the ticks here, so nothing says otherwise.
    node->idlePerCore = 0;
    steps.read(r, {}, 2);
    EXPECT_EQ(steps.inIdleClass(), 1);
  }
}

TEST(YieldingSteps, ARefusedStepIsSaidTheSameWayAndNotYieldingReadsInTheCallersThread) {
  traces::Run none;
  none.dir = "nothing";
  const auto empty = std::make_shared<const traces::Run>(std::move(none));
  auto node = std::make_shared<FakeNode>();
  YieldingSteps idle(true, std::chrono::seconds(60), [node] { return (*node)(); });
  const StepOutcome o = idle.read(empty, {}, 1);
  EXPECT_FALSE(o.reading);
  EXPECT_EQ(o.notRead, readOneStep(*empty, {}, 1).notRead);
  EXPECT_FALSE(o.notRead.empty());

  YieldingSteps caller(false, std::chrono::seconds(60), [node] { return (*node)(); });
  EXPECT_EQ(caller.read(empty, {}, 1).notRead, o.notRead);
  EXPECT_EQ(caller.inIdleClass(), 0);
}

}  // namespace
}  // namespace bubblescope::cli
