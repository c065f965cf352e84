// The selected range's statistics and the search box.
#include <gtest/gtest.h>

#include "gui/model/range_stats.h"
#include "gui/model/search.h"
#include "tests/gui/viewer_fixtures.h"

namespace bubblescope::gui {
namespace {

using analysis::IdleClass;
using testing::analysedRun;

TEST(RangeStats, AStepsRangeAddsUpToTheAnalysisSplit) {
  const auto r = analysedRun(true);
  const auto& pl = r->pipeline();
  const auto& st = pl.steps[1];
  const RangeStats stats = rangeStats(r->rows(), {st.start, st.end});
  ASSERT_EQ(stats.stages.size(), 4u);
  for (size_t s = 0; s < 4; ++s) {
    const StageRangeStats& x = stats.stages[s];
    const auto& split = pl.stages[s].perStep[1];
    EXPECT_EQ(x.ops + x.idle + x.other, st.duration());
    // Gaps wholly inside the step: the classes are the analysis' to the rounding.
    for (int c = 0; c < analysis::kIdleClasses; ++c) {
      EXPECT_NEAR(static_cast<double>(x.idleByClass[c]), static_cast<double>(split.idleByClass[c]),
                  1000.0)
          << "stage " << s << " class " << c;
    }
    EXPECT_EQ(x.opCount[static_cast<int>(analysis::OpKind::F)], 8);
    EXPECT_EQ(x.opCount[static_cast<int>(analysis::OpKind::BW)], 8);
  }
  EXPECT_EQ(stats.ops.size(), 4u * 16u);
  EXPECT_GT(stats.stages[testing::kStallStage].idleByClass[static_cast<int>(IdleClass::OtherStall)],
            testing::kStall * 9 / 10);
}

TEST(RangeStats, ACutGapGivesItsShareAndOpsAreCountedWhereTheyReach) {
  const auto r = analysedRun(true);
  const auto& stalled = r->run.ranks[testing::kStallStage];
  const TimeNs op = testing::rangeStart(stalled, "F mb=5", testing::kStallStep);
  // The second half of the stall and 1 ms of the op after it.
  const RangeStats stats = rangeStats(r->rows(), {op - testing::kStall / 2, op + 1'000'000});
  const StageRangeStats& x = stats.stages[testing::kStallStage];
  EXPECT_NEAR(static_cast<double>(x.idleByClass[static_cast<int>(IdleClass::OtherStall)]),
              testing::kStall / 2, 300'000);
  EXPECT_EQ(x.ops, 1'000'000);
  EXPECT_EQ(x.opCount[static_cast<int>(analysis::OpKind::F)], 1);
  // Reversed bounds are the same range.
  EXPECT_EQ(rangeStats(r->rows(), {op + 1'000'000, op - testing::kStall / 2}).range.start,
            op - testing::kStall / 2);
}

TEST(Search, FindsOpsKernelsAndNvtxByCaseInsensitiveSubstring) {
  const auto r = analysedRun(false, 2);
  const SearchResult ops = search(r->model, r->rows(), "f mb=5");
  // F mb=5: one op per stage and step, and every NVTX range naming it (the op, its send, its
  // receive).
  size_t ranges = 0;
  for (const auto& t : r->run.ranks) {
    for (size_t i = 0; i < t.ranges->size(); ++i) {
      ranges += t.strings.at(t.ranges->name[i]).find("F mb=5") != std::string_view::npos;
    }
  }
  EXPECT_EQ(ops.total, 4u * 3u + ranges);
  const SearchResult label = search(r->model, r->rows(), "F5");
  EXPECT_EQ(label.total, 4u * 3u);  // the ops' short label
  const SearchResult gemm = search(r->model, r->rows(), "XMMA_GEMM");
  size_t kernels = 0;
  for (const auto& t : r->run.ranks) {
    for (auto name : t.kernels->name) kernels += t.strings.at(name).starts_with("sm90_xmma_gemm");
  }
  EXPECT_GT(kernels, 0u);
  EXPECT_EQ(gemm.total, kernels);
  EXPECT_EQ(search(r->model, r->rows(), "no such thing").total, 0u);
  EXPECT_EQ(search(r->model, r->rows(), "").total, 0u);
}

TEST(Search, NextAndPreviousWalkTheMatchesInTimeOrder) {
  const auto r = analysedRun(false);
  const SearchResult hits = search(r->model, r->rows(), "F mb=0");
  TimeNs t = INT64_MIN;
  std::vector<TimeNs> seen;
  while (auto m = hits.next(r->rows(), t)) {
    EXPECT_GT(m->start, t);
    seen.push_back(m->start);
    t = m->start;
  }
  ASSERT_FALSE(seen.empty());
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  const auto back = hits.previous(r->rows(), seen.back());
  ASSERT_TRUE(back.has_value());
  EXPECT_LT(back->start, seen.back());
  EXPECT_FALSE(hits.previous(r->rows(), seen.front()).has_value());
}

TEST(Search, ContainsIgnoresAsciiCase) {
  EXPECT_TRUE(containsNoCase("ncclDevKernel_SendRecv", "sendrecv"));
  EXPECT_TRUE(containsNoCase("abc", ""));
  EXPECT_FALSE(containsNoCase("ab", "abc"));
}

}  // namespace
}  // namespace bubblescope::gui
