// The node's idle CPU as /proc/stat says it: the watch analyses its steps in the idle class only
// while there is some (cli/yielding_work.h).
#include <gtest/gtest.h>

#include "cli/node_cpu.h"

namespace bubblescope::cli {
namespace {

TEST(NodeCpu, ReadsTheKernelsFirstLine) {
  // user nice system idle iowait irq softirq steal guest guest_nice, as Linux 6.x writes it.
  const auto t = parseCpuLine("cpu  4705 356 584 3699 23 0 12 0 7 0");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->idle, 3699u + 23u);
  EXPECT_EQ(t->total, 4705u + 356 + 584 + 3699 + 23 + 0 + 12 + 0);  // guest is in user already
  // Older kernels write fewer fields.
  const auto old = parseCpuLine("cpu 10 0 5 100");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->idle, 100u);
  EXPECT_EQ(old->total, 115u);
}

TEST(NodeCpu, RefusesWhatIsNotTheLine) {
  EXPECT_FALSE(parseCpuLine("cpu0 1 2 3 4 5"));  // one CPU's line, not the node's
  EXPECT_FALSE(parseCpuLine("intr 12 0 0"));
  EXPECT_FALSE(parseCpuLine("cpu  1 2 x 4"));
  EXPECT_FALSE(parseCpuLine("cpu  1 2"));
  EXPECT_FALSE(parseCpuLine(""));
}

TEST(NodeCpu, IdleMeansHalfACoreToSpare) {
  const CpuTimes before{1000, 10000};
  // 2 cores, 200 ticks: 100 ticks of one core is half of all.
  EXPECT_EQ(hadIdleCpu(before, {1000 + 50, 10000 + 200}, 2), std::optional<bool>(true));
  EXPECT_EQ(hadIdleCpu(before, {1000 + 49, 10000 + 200}, 2), std::optional<bool>(false));
  EXPECT_EQ(hadIdleCpu(before, {1000, 10000 + 200}, 2), std::optional<bool>(false));
  // 64 cores, 6400 ticks: half a core is 50 of them.
  EXPECT_EQ(hadIdleCpu(before, {1000 + 50, 10000 + 6400}, 64), std::optional<bool>(true));
  EXPECT_EQ(hadIdleCpu(before, {1000 + 40, 10000 + 6400}, 64), std::optional<bool>(false));
}

TEST(NodeCpu, TooLittleTimeSaysNothing) {
  const CpuTimes before{1000, 10000};
  EXPECT_FALSE(hadIdleCpu(before, {1000 + 9, 10000 + 9}, 2));
  EXPECT_FALSE(hadIdleCpu(before, before, 2));
  EXPECT_FALSE(hadIdleCpu(before, {999, 10100}, 2));  // a counter that went back
  EXPECT_FALSE(hadIdleCpu(before, {1100, 10100}, 0));
}

TEST(NodeCpu, ThisNodesReads) {
  const auto t = readCpuTimes();
  ASSERT_TRUE(t) << "/proc/stat does not read as the kernel writes it";
  EXPECT_GT(t->total, 0u);
  EXPECT_LE(t->idle, t->total);
}

}  // namespace
}  // namespace bubblescope::cli
