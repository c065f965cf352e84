// A live watch's work (each step's analysis, each poll's reading) yields to the job: in an
// idle-class thread while the node has CPU to spare, in the caller's thread when it has none, and
// again in the caller's thread when the idle-class thread is late; each way, the result is the
// same (cli/yielding_work.h).
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyzer/watch/step_reading.h"
#include "cli/watch_session.h"
#include "cli/yielding_work.h"
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

// Each step as the watch reads it: through `work`.
StepOutcome read(YieldingWork& work, const std::shared_ptr<const traces::Run>& r,
                 const analysis::AnalyzeOptions& base, int64_t n) {
  return work.run<StepOutcome>([r, base, n] { return readOneStep(*r, base, n); });
}

std::string said(const StepOutcome& o) {
  return o.reading ? analysis::watch::stepLine(*o.reading) : "not read: " + o.notRead;
}

TEST(YieldingWork, AnIdleNodeReadsEachStepInAnIdleClassThreadTheSameWay) {
  const auto r = run();
  const analysis::AnalyzeOptions base;
  auto node = std::make_shared<FakeNode>();
  YieldingWork steps(true, std::chrono::seconds(60), [node] { return (*node)(); });
  for (int64_t n = 1; n <= 3; ++n) {
    const StepOutcome o = read(steps, r, base, n);
    ASSERT_TRUE(o.reading) << o.notRead;
    EXPECT_EQ(said(o), said(readOneStep(*r, base, n)));
  }
  EXPECT_EQ(steps.inIdleClass(), 3);
  EXPECT_EQ(steps.ranAgain(), 0);
}

TEST(YieldingWork, ABusyNodeReadsInTheCallersThread) {
  const auto r = run();
  auto node = std::make_shared<FakeNode>();
  node->idlePerCore = 10;  // under half a core to spare
  YieldingWork steps(true, std::chrono::seconds(60), [node] { return (*node)(); });
  const StepOutcome o = read(steps, r, {}, 2);
  EXPECT_EQ(said(o), said(readOneStep(*r, {}, 2)));
  EXPECT_EQ(steps.inIdleClass(), 0);
}

TEST(YieldingWork, ALateIdleClassThreadIsOvertakenAndTheNodeTakenForBusy) {
  const auto r = run();
  auto node = std::make_shared<FakeNode>();
  // No patience at all: the idle-class thread is always late, so the caller reads the step too.
  YieldingWork steps(true, std::chrono::milliseconds(0), [node] { return (*node)(); });
  const StepOutcome o = read(steps, r, {}, 1);
  EXPECT_EQ(said(o), said(readOneStep(*r, {}, 1)));
  EXPECT_EQ(steps.inIdleClass(), 1);
  EXPECT_LE(steps.ranAgain(), 1);
  if (steps.ranAgain() == 1) {
    // Until the next reading says otherwise, the next step stays in the caller's thread: the
    // readings come faster than the ticks here, so nothing says otherwise.
    node->idlePerCore = 0;
    read(steps, r, {}, 2);
    EXPECT_EQ(steps.inIdleClass(), 1);
  }
}

TEST(YieldingWork, ARefusedStepIsSaidTheSameWayAndNotYieldingReadsInTheCallersThread) {
  traces::Run none;
  none.dir = "nothing";
  const auto empty = std::make_shared<const traces::Run>(std::move(none));
  auto node = std::make_shared<FakeNode>();
  YieldingWork idle(true, std::chrono::seconds(60), [node] { return (*node)(); });
  const StepOutcome o = read(idle, empty, {}, 1);
  EXPECT_FALSE(o.reading);
  EXPECT_EQ(o.notRead, readOneStep(*empty, {}, 1).notRead);
  EXPECT_FALSE(o.notRead.empty());

  YieldingWork caller(false, std::chrono::seconds(60), [node] { return (*node)(); });
  EXPECT_EQ(read(caller, empty, {}, 1).notRead, o.notRead);
  EXPECT_EQ(caller.inIdleClass(), 0);
}

TEST(YieldingWork, WhatTheWorkThrowsReachesTheCallerFromEitherThread) {
  auto node = std::make_shared<FakeNode>();
  const std::function<int()> refuse = []() -> int { throw std::runtime_error("no such step"); };
  YieldingWork idle(true, std::chrono::seconds(60), [node] { return (*node)(); });
  EXPECT_THROW(idle.run(refuse), std::runtime_error);
  EXPECT_EQ(idle.inIdleClass(), 1);
  YieldingWork caller(false);
  EXPECT_THROW(caller.run(refuse), std::runtime_error);
}

TEST(YieldingWork, WorkThatOutlivesTheCallHoldsWhatItShares) {
  // Late at once: the idle-class run goes on after run() returned (its caller's copy returns
  // first), on the vector it shares; the destructor waits for it.
  auto node = std::make_shared<FakeNode>();
  auto values = std::make_shared<const std::vector<int>>(std::vector<int>(100'000, 3));
  int64_t sum = 0;
  {
    YieldingWork work(true, std::chrono::milliseconds(0), [node] { return (*node)(); });
    sum = work.run<int64_t>([values] {
      int64_t s = 0;
      for (int v : *values) s += v;
      return s;
    });
    values.reset();
  }
  EXPECT_EQ(sum, 300'000);
}

}  // namespace
}  // namespace bubblescope::cli
