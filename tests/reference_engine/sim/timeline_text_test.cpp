// The text timeline: one row per stage, ops scaled to the width with kind and microbatch, idle
// as '.', narrow ops folded to their kind, and measured timelines drawn from their first op.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "reference_engine/schedule/schedule.h"
#include "reference_engine/sim/simulate.h"
#include "reference_engine/sim/timeline_text.h"

namespace bubblescope::engine {
namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TimelineStyle columns(int n, bool showChunk = false) {
  TimelineStyle style;
  style.width = n + 5;  // "sN |" + n columns + "|"
  style.showChunk = showChunk;
  return style;
}

TEST(TimelineText, DrawsOneRowPerStageWithOpsScaledAndIdleAsDots) {
  // 8 columns over 8 ms: one column per ms.
  const std::vector<std::vector<TimedOp>> stages = {
      {{{OpKind::F, 0, 0}, 0, 4'000'000}},
      {{{OpKind::F, 0, 0}, 4'000'000, 6'000'000}, {{OpKind::BW, 12, 0}, 6'000'000, 8'000'000}},
  };
  const auto out = lines(renderTimeline(stages, columns(8)));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], "s0 |F0--....|");
  EXPECT_EQ(out[1], "s1 |....F0BW|");  // "BW12" is wider than its 2 columns: kind only
  EXPECT_EQ(out[2], "    0.000 8.000 ms");
}

TEST(TimelineText, ShowsChunkWhenAskedAndDropsItFirstWhenNarrow) {
  const std::vector<std::vector<TimedOp>> stages = {{{{OpKind::B, 3, 1}, 0, 10}}};
  EXPECT_EQ(lines(renderTimeline(stages, columns(6, true)))[0], "s0 |B3.1--|");
  const std::vector<std::vector<TimedOp>> narrow = {
      {{{OpKind::F, 1, 0}, 0, 3}, {{OpKind::F, 12, 1}, 3, 5}, {{OpKind::F, 2, 1}, 5, 9}}};
  EXPECT_EQ(lines(renderTimeline(narrow, columns(9, true)))[0], "s0 |F1-F-F2.1|");
}

TEST(TimelineText, OpShorterThanAColumnStillMarksItsColumn) {
  const std::vector<std::vector<TimedOp>> stages = {
      {{{OpKind::F, 0, 0}, 0, 1}, {{OpKind::W, 0, 0}, 1000, 1001}}};
  EXPECT_EQ(lines(renderTimeline(stages, columns(10)))[0], "s0 |F........W|");
}

TEST(TimelineText, MeasuredTimelineStartsAtItsFirstOp) {
  const std::vector<std::vector<TimedOp>> stages = {
      {{{OpKind::F, 0, 0}, 5'000'000, 7'000'000}, {{OpKind::F, 1, 0}, 7'000'000, 9'000'000}}};
  TimelineStyle style = columns(4);
  style.fromZero = false;
  const auto out = lines(renderTimeline(stages, style));
  EXPECT_EQ(out[0], "s0 |F0F1|");
  EXPECT_EQ(out[1], "    5.000 9.000 ms");
}

TEST(TimelineText, RendersASimulatedScheduleWithTheSameWidthOnEveryRow) {
  const Schedule s = Schedule::zbV(4, 8);
  SimCosts c;
  c.perKind = {2'000'000, 2'000'000, 2'000'000};
  const SimResult r = simulate(s, c);
  TimelineStyle style;
  style.width = 120;
  style.showChunk = true;
  const auto out = lines(renderTimeline(timedOps(s, r), style));
  ASSERT_EQ(out.size(), 5u);
  for (int st = 0; st < 4; ++st) {
    EXPECT_EQ(out[st].size(), 120u) << out[st];
    EXPECT_EQ(out[st].rfind("s" + std::to_string(st) + " |", 0), 0u) << out[st];
    EXPECT_EQ(out[st].back(), '|');
  }
  // Stage 3 waits for three chunk forwards (3 of 51 ms over 115 columns) before it starts.
  EXPECT_EQ(out[3].rfind("s3 |.......F", 0), 0u) << out[3];
}

}  // namespace
}  // namespace bubblescope::engine
