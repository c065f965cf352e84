// The names and claims of a process's later trace files (agent/core/trace_file_names.h).
#include <gtest/gtest.h>

#include "agent/core/trace_file_names.h"

namespace bubblescope::agent {
namespace {

TEST(TraceFileNames, PartsFollowTheFallbackNameOrThePidName) {
  EXPECT_EQ(partName("rank-00003.sqlite", "rank-3.pid-123.sqlite", 2),
            "rank-3.pid-123.part-2.sqlite");
  EXPECT_EQ(partName("pid-123.sqlite", "", 2), "pid-123.part-2.sqlite");
  EXPECT_EQ(partName("pid-123.sqlite", "", 8), "pid-123.part-8.sqlite");
}

TEST(TraceFileNames, WithoutRankKeepsTheRankOnlyInExtra) {
  traces::RankMeta ranked;
  ranked.rank = 3;
  const traces::RankMeta m = withoutRank(ranked);
  EXPECT_EQ(m.rank, -1);
  EXPECT_EQ(m.extra.at("claimed_rank"), "3");
  traces::RankMeta forked;  // a forked child: no rank, nothing claimed
  forked.rank = -1;
  EXPECT_EQ(withoutRank(forked).extra.count("claimed_rank"), 0u);
}

}  // namespace
}  // namespace bubblescope::agent
