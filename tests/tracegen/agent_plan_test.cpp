// A generated rank as the agent's replay program runs it: every kernel launched once, by the
// call that launches it on a real stack; NVTX ranges that nest; the communicators torch makes;
// the rank's clock skew on every time; and a text form that reads back as it was written.
#include "tests/tracegen/agent_plan.h"
#include "tests/tracegen/memory_model.h"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

namespace bubblescope::tracegen {
namespace {

JobSpec skewed() {
  JobSpec s;
  s.clockSkew = {0, 430'000, -270'000, 910'000};
  s.stepRangeLag = 6'000;
  return s;
}

size_t count(const ReplayPlan& plan, ReplayVerb verb) {
  size_t n = 0;
  for (const ReplayAction& a : plan.actions) n += a.verb == verb ? 1 : 0;
  return n;
}

TEST(AgentPlan, EveryKernelIsLaunchedOnceByWhatLaunchesItOnARealStack) {
  const JobTimeline job = execute(skewed());
  for (int r = 0; r < job.spec.p; ++r) {
    const RankTimeline& tl = job.ranks[r];
    const ReplayPlan plan = agentReplayPlan(job, r);
    std::map<ReplayVerb, size_t> kernelsBy;
    for (const ReplayAction& a : plan.actions) {
      if (a.kernel) ++kernelsBy[a.verb];
    }
    size_t compute = 0, grouped = 0, single = 0;
    for (const Kernel& k : tl.kernels)
      compute += k.kind == KernelKind::Compute || k.kind == KernelKind::Optimizer;
    for (const auto& batch : tl.batches) (batch.size() > 1 ? grouped : single) += 1;
    size_t backward = 0;
    for (const Kernel& k : tl.kernels) {
      backward += k.kind == KernelKind::Compute && tl.ops[k.owner].id.pass == PassKind::BW;
    }
    EXPECT_EQ(kernelsBy[ReplayVerb::Launch] + kernelsBy[ReplayVerb::AutogradLaunch], compute)
        << "rank " << r;
    EXPECT_EQ(kernelsBy[ReplayVerb::AutogradLaunch], backward) << "rank " << r;
    EXPECT_GT(backward, 0u);
    // A batch of several calls is one group: its ncclGroupEnd launches the fused kernel.
    EXPECT_EQ(kernelsBy[ReplayVerb::GroupEnd], grouped) << "rank " << r;
    EXPECT_EQ(count(plan, ReplayVerb::GroupStart), grouped) << "rank " << r;
    EXPECT_EQ(kernelsBy[ReplayVerb::Send] + kernelsBy[ReplayVerb::Recv], single) << "rank " << r;
    EXPECT_EQ(kernelsBy[ReplayVerb::AllReduce], static_cast<size_t>(job.spec.steps));
    EXPECT_EQ(count(plan, ReplayVerb::Send) + count(plan, ReplayVerb::Recv),
              tl.calls.size() - static_cast<size_t>(job.spec.steps));
  }
  // The middle stages fuse a send with the next receive from the same peer.
  EXPECT_GT(count(agentReplayPlan(job, 1), ReplayVerb::GroupEnd), 0u);
}

TEST(AgentPlan, RangesNestAndEveryOpIsInsideItsStep) {
  const JobTimeline job = execute(skewed());
  for (int r = 0; r < job.spec.p; ++r) {
    const ReplayPlan plan = agentReplayPlan(job, r);
    std::vector<std::string> open;
    int ops = 0;
    TimeNs last = INT64_MIN;
    for (const ReplayAction& a : plan.actions) {
      EXPECT_GE(a.at, last);
      last = a.at;
      if (a.verb == ReplayVerb::Push) {
        const bool isStep = a.text.rfind("step ", 0) == 0;
        EXPECT_EQ(open.empty(), isStep) << a.text;  // a step opens alone, everything else in one
        if (!isStep) ++ops;
        open.push_back(a.text);
      } else if (a.verb == ReplayVerb::Pop) {
        ASSERT_FALSE(open.empty());
        open.pop_back();
      }
    }
    EXPECT_TRUE(open.empty());
    // Every op and each step's optimizer.
    EXPECT_EQ(ops, job.spec.steps * (2 * job.spec.m + 1));
    EXPECT_EQ(plan.actions.back().text, "cudaDeviceSynchronize");
  }
}

TEST(AgentPlan, CommunicatorsAreThePipelineAndOnePairPerNeighbour) {
  const JobTimeline job = execute(skewed());
  const ReplayPlan plan = agentReplayPlan(job, 1);
  EXPECT_EQ(plan.comms,
            (std::vector<ReplayComm>{{"pipeline", 4, 1}, {"p2p:0:1", 2, 1}, {"p2p:1:2", 2, 0}}));
  for (const ReplayAction& a : plan.actions) {
    if (a.verb != ReplayVerb::Send && a.verb != ReplayVerb::Recv) continue;
    EXPECT_NE(a.comm, 0);
    EXPECT_EQ(a.peer, 1 - plan.comms[a.comm].rank);  // the other member of the pair
    EXPECT_EQ(a.count, job.spec.activationBytes / 2);
  }
}

TEST(AgentPlan, EveryTimeCarriesTheRanksClockSkew) {
  JobSpec plain = skewed();
  plain.clockSkew.clear();
  const JobTimeline a = execute(plain), b = execute(skewed());
  const ReplayPlan x = agentReplayPlan(a, 3), y = agentReplayPlan(b, 3);
  ASSERT_EQ(x.actions.size(), y.actions.size());
  for (size_t i = 0; i < x.actions.size(); ++i) {
    EXPECT_EQ(y.actions[i].at - x.actions[i].at, 910'000);
    if (x.actions[i].kernel) {
      EXPECT_EQ(y.actions[i].kernel->start - x.actions[i].kernel->start, 910'000);
    }
  }
}

TEST(ReplayPlan, TextReadsBackAsWritten) {
  const ReplayPlan plan = agentReplayPlan(execute(skewed()), 2);
  const ReplayPlan back = parsePlan(formatPlan(plan));
  EXPECT_EQ(back, plan);
}

// The allocator model's cudaMalloc and cudaFree calls are in the plan, at their host times.
TEST(ReplayPlan, AllocatorCallsAreMallocAndFreeActions) {
  const JobTimeline job = execute(skewed());
  const ReplayPlan plan = agentReplayPlan(job, 1);
  int64_t held = 0;
  size_t calls = 0;
  for (const ReplayAction& a : plan.actions) {
    if (a.verb == ReplayVerb::Malloc) held += static_cast<int64_t>(a.count), ++calls;
    if (a.verb == ReplayVerb::Free) held -= static_cast<int64_t>(a.count), ++calls;
  }
  EXPECT_EQ(calls, allocatorCalls(job, 1).size());
  EXPECT_EQ(held, job.spec.weightMemory);  // every activation freed, the weights kept
  EXPECT_EQ(plan.deviceMemory, job.spec.deviceMemory);
}

TEST(ReplayPlan, BadTextNamesTheLine) {
  const std::string text =
      "bubblescope-replay-plan 2\nrank 0 of 2 device 0 memory 0\npush 10 -1 -1\n";
  try {
    parsePlan(text);
    FAIL() << "parsed";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("line 3"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parsePlan("{}"), std::runtime_error);
}

}  // namespace
}  // namespace bubblescope::tracegen
