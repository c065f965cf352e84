// What the host was doing while the device idled: the most specific range or call covering half
// the gap, the innermost of its kind; step wrappers and NCCL's own ranges say nothing.
#include "analyzer/utilization/host_cause.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <random>
#include <vector>

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
  h.t.apiCalls->start.push_back(300);
  h.t.apiCalls->end.push_back(700);
  h.t.apiCalls->thread.push_back(0);
  h.t.apiCalls->name.push_back(h.t.strings.intern("cudaStreamSynchronize"));
  h.t.apiCalls->correlation.push_back(0);
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

// The rule read straight from its definition: walking back from the gap's end over the latest
// 4,096 activities to open, look at every one. The class skips blocks that ended before the gap;
// it must give the same answer everywhere.
struct Activity {
  TimeNs start, end;
  int kind;  // 0 synchronize, 1 data loading, 2 optimizer, 3 host work
  std::string name;
};

Cause byDefinition(const std::vector<Activity>& sorted, TimeNs start, TimeNs end) {
  static const std::array<const char*, 4> causes = {"synchronize", "data loading",
                                                    "optimizer (host)", "host work"};
  std::array<TimeNs, 4> overlap{};
  std::array<std::string, 4> name, inner;
  std::array<bool, 4> covered{};
  size_t last = 0;
  while (last < sorted.size() && sorted[last].start < end) ++last;
  for (size_t n = 0; last > 0 && n < 4096; ++n) {
    const Activity& a = sorted[--last];
    const TimeNs o = std::min(end, a.end) - std::max(start, a.start);
    if (o > overlap[a.kind]) {
      overlap[a.kind] = o;
      name[a.kind] = a.name;
    }
    if (o > 0 && o >= (end - start) / 2 && !covered[a.kind]) {
      covered[a.kind] = true;
      inner[a.kind] = a.name;
    }
  }
  for (size_t k = 0; k < 4; ++k) {
    if (covered[k]) return {causes[k], inner[k]};
  }
  const auto best = std::max_element(overlap.begin(), overlap.end());
  if (*best <= 0) return {"nothing", ""};
  const auto k = static_cast<size_t>(best - overlap.begin());
  return {causes[k], name[k]};
}

TEST(HostCause, EveryGapGetsTheAnswerOfTheWholeWalkBack) {
  struct Kind {
    const char* name;
    int kind;
  };
  const std::array<Kind, 5> names = {{{"aten::item", 0},
                                      {"enumerate(DataLoader)#__next__", 1},
                                      {"Optimizer.step#Adam.step", 2},
                                      {"aten::mm", 3},
                                      {"## forward ##", 3}}};
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    testing::HandTrace h;
    std::vector<Activity> sorted;
    TimeNs at = 0;
    // Short ops, a few long wrappers (one over the whole trace), step ranges that say nothing:
    // more than the walk's 4,096 and many blocks, with starts all different.
    const int ranges = 3000 + static_cast<int>(rng() % 6000);
    for (int i = 0; i < ranges; ++i) {
      at += 1 + static_cast<TimeNs>(rng() % 20);
      const uint32_t pick = rng() % 1000;
      TimeNs length = 1 + static_cast<TimeNs>(rng() % 30);
      if (pick < 3) length = 200 + static_cast<TimeNs>(rng() % 3000);
      if (i == 10) length = 1'000'000'000;
      if (pick >= 980) {
        h.range(0, at, at + length, "ProfilerStep#" + std::to_string(i));
        continue;
      }
      // The range over the whole trace is the optimizer's: the answer of every gap whose walk
      // back reaches it, and no longer once the gap is 4,096 activities past it.
      const Kind& k = i == 10 ? names[2] : names[rng() % names.size()];
      h.range(rng() % 2, at, at + length, k.name);
      sorted.push_back({at, at + length, k.kind, k.name});
    }
    const HostCauses causes(h.t);
    for (int g = 0; g < 1000; ++g) {
      // Many gaps begin just before some activity ends: where a block passed over wrongly
      // would lose the overlap that names the gap.
      // A fifth end where the walk back stops short of the range over the whole trace.
      const auto edge = std::min(sorted.size() - 1, 4050 + static_cast<size_t>(rng() % 100));
      const TimeNs start = g % 5 == 4 ? sorted[edge].start - static_cast<TimeNs>(rng() % 30)
                           : g % 2 == 0
                               ? sorted[rng() % sorted.size()].end - static_cast<TimeNs>(rng() % 15)
                               : static_cast<TimeNs>(rng() % static_cast<uint64_t>(at + 100));
      const TimeNs end = start + 1 + static_cast<TimeNs>(rng() % (g % 3 == 0 ? 200 : 40));
      SCOPED_TRACE("gap " + std::to_string(start) + ".." + std::to_string(end));
      EXPECT_EQ(causes.during(start, end), byDefinition(sorted, start, end));
    }
  }
}

}  // namespace
}  // namespace bubblescope::analysis
