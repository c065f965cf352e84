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

TEST(AgentTickConverter, BoundedHistoryStillInterpolatesOldTicks) {
  TickConverter c;
  // An anchor every 20 ms for 3 hours (1 tick = 1 ns); the rate changes after the first hour.
  constexpr uint64_t kHour = 3'600'000'000'000;
  auto ns = [](uint64_t t) {
    return t <= kHour ? static_cast<int64_t>(t) : static_cast<int64_t>(kHour + (t - kHour) * 2);
  };
  for (uint64_t t = 0; t <= 3 * kHour; t += 20'000'000) c.addAnchor({t, ns(t)});
  EXPECT_LE(c.anchorCount(), TickConverter::kRecentAnchors + TickConverter::kHistoryAnchors);
  // Hours-old ticks convert at the rate of their time, not today's.
  EXPECT_NEAR(static_cast<double>(c.toNs(kHour / 2)), static_cast<double>(ns(kHour / 2)), 1e3);
  EXPECT_NEAR(static_cast<double>(c.toNs(kHour + 5)), static_cast<double>(ns(kHour + 5)), 2e9);
  EXPECT_EQ(c.toNs(3 * kHour - 10'000'000), ns(3 * kHour - 10'000'000));
  EXPECT_EQ(c.toNs(3 * kHour + 10), ns(3 * kHour) + 10 * 5 / 3);  // beyond: the long-run rate
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
  // The time the tick was read, to within the reads around it: a loaded machine may preempt the
  // test between two reads for milliseconds, so the closest of a few tries, and its width allowed.
  uint64_t ticks = 0;
  int64_t real = 0, width = INT64_MAX;
  for (int i = 0; i < 20 && width > 2'000; ++i) {
    const int64_t before = realtimeNs();
    const uint64_t t = nowTicks();
    const int64_t after = realtimeNs();
    if (after - before < width) {
      width = after - before;
      ticks = t;
      real = before + width / 2;
    }
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  c.addAnchor(readTickAnchor());
  EXPECT_LT(std::llabs(c.toNs(ticks) - real), 20'000 + width / 2) << "ns";
  selectTicks(false);
}

}  // namespace
}  // namespace bubblescope::agent
