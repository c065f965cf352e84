// A stage's replayed gaps, read in rising position as classification reads them, are the gaps
// the replay's timings give, and reading them all goes over each op once: the reads grow with
// the stage's ops, not with their square (issue 28, rule 2: a stage's ops per step are 2m, and m
// comes from the input).
#include "analyzer/idle/replay_gaps.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>

namespace bubblescope::analysis {
namespace {

// One stage of n ops, each after the one before with a random gap and cost, some ending past
// the next one's start (an op's end is not in order of starts on a real stage's replay when ops
// of two chunks overlap).
engine::SimResult stageOf(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<TimeNs> gap(0, 50), cost(1, 100);
  engine::SimResult sim;
  sim.stages.resize(2);
  TimeNs t = 0;
  for (int i = 0; i < n; ++i) {
    t += gap(rng);
    const TimeNs end = t + cost(rng);
    sim.stages[1].ops.push_back({t, end});
    t = i % 7 == 3 ? t + 1 : end;  // every seventh op overlaps the next
    sim.makespan = std::max(sim.makespan, end);
  }
  sim.makespan += 25;
  return sim;
}

// The gap before `pos` from the first op, as the definition reads.
TimeNs gapFromScratch(const engine::SimResult& sim, int pos) {
  const auto& ops = sim.stages[1].ops;
  TimeNs prevEnd = 0;
  for (int j = 0; j < pos && j < static_cast<int>(ops.size()); ++j) {
    prevEnd = std::max(prevEnd, ops[j].end);
  }
  if (pos >= static_cast<int>(ops.size())) return sim.makespan - prevEnd;
  return std::max<TimeNs>(0, ops[pos].start - prevEnd);
}

TEST(ReplayGaps, EachGapIsItsDefinitionsWhateverGapsAreSkipped) {
  const uint32_t seed = std::random_device{}();
  std::printf("seed %u\n", seed);
  SCOPED_TRACE(seed);
  const engine::SimResult sim = stageOf(500, seed);
  std::mt19937 rng(seed + 1);
  ReplayGaps gaps(sim, 1);
  for (int pos = 0; pos <= 500; ++pos) {
    if (rng() % 3 == 0) continue;  // an op without idle before it is not asked about
    EXPECT_EQ(gaps.before(pos), gapFromScratch(sim, pos)) << "pos " << pos;
  }
  // Past the last op, and again from the start.
  EXPECT_EQ(gaps.before(900), gapFromScratch(sim, 900));
  EXPECT_EQ(gaps.before(3), gapFromScratch(sim, 3));
  EXPECT_EQ(gaps.before(0), gapFromScratch(sim, 0));
}

TEST(ReplayGaps, ReadingEveryGapGoesOverEachOpOnce) {
  for (int n : {1000, 2000, 4000, 8000}) {
    const engine::SimResult sim = stageOf(n, 7);
    ReplayGaps gaps(sim, 1);
    for (int pos = 0; pos <= n; ++pos) gaps.before(pos);
    EXPECT_EQ(gaps.reads(), static_cast<size_t>(n)) << n << " ops";
  }
}

}  // namespace
}  // namespace bubblescope::analysis
