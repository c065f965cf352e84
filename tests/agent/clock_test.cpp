// Ticks to CLOCK_REALTIME: interpolation between anchors, extrapolation beyond them, and the
// real TSC agreeing with clock_gettime.
#include "agent/core/clock.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <thread>

namespace bubblescope::agent {
namespace {

TEST(AgentTickConverter, InterpolatesBetweenAnchors) {
  TickConverter c;
  c.addAnchor({1000, 1'000'000'000});
  c.addAnchor({3000, 1'000'001'000});  // 0.5 ns per tick
  c.addAnchor({5000, 1'000'003'000});  // then 1 ns per tick
  EXPECT_EQ(c.toNs(1000), 1'000'000'000);
  EXPECT_EQ(c.toNs(2000), 1'000'000'500);
  EXPECT_EQ(c.toNs(4000), 1'000'002'000);
  EXPECT_EQ(c.toNs(5000), 1'000'003'000);
}

TEST(AgentTickConverter, ExtrapolatesWithTheLongBaselineRate) {
  TickConverter c;
  c.addAnchor({0, 0});
  c.addAnchor({1000, 2000});
  c.addAnchor({2000, 4000});
  EXPECT_EQ(c.toNs(3000), 6000);  // after the newest
  c.addAnchor({10000, 20000});
  EXPECT_EQ(c.toNs(10500), 21000);
}

TEST(AgentTickConverter, ForgetsOldAnchorsButStillConverts) {
  TickConverter c;
  for (uint64_t i = 0; i < 3 * TickConverter::kMaxAnchors; ++i) {
    c.addAnchor({1'000 + i * 100, static_cast<int64_t>(i * 50)});
  }
  EXPECT_LE(c.anchorCount(), TickConverter::kMaxAnchors);
  EXPECT_EQ(c.toNs(1'000), 0);  // older than every kept anchor: extrapolated at 0.5 ns/tick
  EXPECT_EQ(c.toNs(1'000 + 100 * 100), 5000);
}

TEST(AgentTickConverter, RealtimeTicksAreTheIdentity) {
  TickConverter c(true);
  EXPECT_EQ(c.toNs(123456789), 123456789);
}

TEST(AgentTicks, TscTicksConvertToTheRealtimeClockWithinMicroseconds) {
  if (!selectTicks(true)) GTEST_SKIP() << "no invariant TSC here";
  TickConverter c;
  c.addAnchor(readTickAnchor());
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const uint64_t ticks = nowTicks();
  const int64_t real = realtimeNs();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  c.addAnchor(readTickAnchor());
  EXPECT_LT(std::llabs(c.toNs(ticks) - real), 20'000) << "ns";
  selectTicks(false);
}

}  // namespace
}  // namespace bubblescope::agent
