// Schedule detection: an observed per-stage order is named after the generator that produces
// exactly that order for its p, m and v, and is "custom" when none does.
#include "analyzer/whatif/schedule_match.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

namespace bubblescope::analysis {
namespace {

using engine::Schedule;

// The order as a trace shows it: the generator's name is not part of it.
Schedule observed(Schedule s) {
  s.kind = engine::ScheduleKind::Custom;
  return s;
}

struct DetectCase {
  const char* expected;
  std::function<Schedule(int p, int m)> make;
};

TEST(DetectSchedule, NamesTheGeneratorWhoseOrderIsObserved) {
  const DetectCase cases[] = {
      {"GPipe", [](int p, int m) { return Schedule::gpipe(p, m); }},
      {"1F1B", [](int p, int m) { return Schedule::oneF1B(p, m); }},
      {"interleaved 1F1B", [](int p, int m) { return Schedule::interleaved1F1B(p, m, 2); }},
      {"ZB-H1", [](int p, int m) { return Schedule::zbH1(p, m); }},
      {"ZB-H2", [](int p, int m) { return Schedule::zbH2(p, m); }},
      {"ZB-V", [](int p, int m) { return Schedule::zbV(p, m); }},
  };
  for (auto [p, m] : {std::pair{4, 8}, std::pair{2, 4}, std::pair{3, 6}}) {
    for (const auto& c : cases) {
      const Schedule s = observed(c.make(p, m));
      const ScheduleMatch match = detectSchedule(s);
      EXPECT_EQ(match.name, c.expected) << "p=" << p << " m=" << m;
      EXPECT_TRUE(match.exact) << c.expected << " p=" << p << " m=" << m;
      EXPECT_EQ(match.p, p);
      EXPECT_EQ(match.m, m);
      EXPECT_EQ(match.v, s.v);
      EXPECT_EQ(match.splitsBackward, s.splitsBackward()) << c.expected;
    }
  }
}

TEST(DetectSchedule, InterleavedIsDetectedWithTheObservedChunkCount) {
  const ScheduleMatch match = detectSchedule(observed(Schedule::interleaved1F1B(4, 8, 3)));
  EXPECT_EQ(match.name, "interleaved 1F1B");
  EXPECT_EQ(match.v, 3);
}

TEST(DetectSchedule, OrderNoGeneratorProducesIsCustom) {
  // 1F1B with two ops of the last stage swapped.
  Schedule s = observed(Schedule::oneF1B(4, 8));
  std::swap(s.stages[3][0], s.stages[3][1]);
  const ScheduleMatch match = detectSchedule(s);
  EXPECT_EQ(match.name, "custom");
  EXPECT_FALSE(match.exact);
  EXPECT_EQ(match.p, 4);
  EXPECT_EQ(match.m, 8);
}

TEST(DetectSchedule, PartialOrderIsCustom) {
  // A capture that missed the first stage's last backward.
  Schedule s = observed(Schedule::gpipe(4, 8));
  s.stages[0].pop_back();
  EXPECT_EQ(detectSchedule(s).name, "custom");
}

}  // namespace
}  // namespace bubblescope::analysis
