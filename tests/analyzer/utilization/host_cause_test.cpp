// What the host was doing while the device idled: the most specific range or call covering half
// the gap, the innermost of its kind; step wrappers and NCCL's own ranges say nothing.
#include "analyzer/utilization/host_cause.h"

#include <gtest/gtest.h>

#include "tests/analyzer/recognize/hand_trace.h"

namespace bubblescope::analysis {
namespace {

using Cause = std::pair<std::string, std::string>;

TEST(HostCause, DataLoaderInsideTheStepNamesTheGap) {
  testing::HandTrace h;
  h.range(0, 0, 1000, "ProfilerStep#3")
      .range(0, 10, 900, "## forward ##")
      .range(0, 100, 300, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
  const HostCauses causes(h.t);
  EXPECT_EQ(causes.during(120, 280),
            (Cause{"data loading", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"}));
  // Outside the loader only the forward's wrapper runs: host work, named by it.
  EXPECT_EQ(causes.during(400, 500), (Cause{"host work", "## forward ##"}));
}

TEST(HostCause, ASynchronizeWinsOverTheRangeAroundIt) {
  testing::HandTrace h;
  h.range(0, 0, 1000, "Optimizer.step#AdamW.step").range(0, 200, 600, "aten::mul_");
  h.t.apiCalls.start.push_back(300);
  h.t.apiCalls.end.push_back(700);
  h.t.apiCalls.thread.push_back(0);
  h.t.apiCalls.name.push_back(h.t.strings.intern("cudaStreamSynchronize"));
  h.t.apiCalls.correlation.push_back(0);
  const HostCauses causes(h.t);
  EXPECT_EQ(causes.during(350, 650).first, "synchronize");
  EXPECT_EQ(causes.during(50, 150), (Cause{"optimizer (host)", "Optimizer.step#AdamW.step"}));
  // Within the optimizer, the innermost range that covers half the gap names the work.
  EXPECT_EQ(causes.during(210, 290).first, "optimizer (host)");
}

TEST(HostCause, NothingTracedIsNothingAndStepWrappersAndNcclSayNothing) {
  testing::HandTrace h;
  h.range(0, 0, 1000, "ProfilerStep#1").range(1, 100, 900, "ncclGroupEnd", "NCCL");
  const HostCauses causes(h.t);
  EXPECT_EQ(causes.during(200, 300), (Cause{"nothing", ""}));
}

}  // namespace
}  // namespace bubblescope::analysis
