// Two files in one message are told apart by as much of their paths as differs.
#include "traces/files/path_names.h"

#include <gtest/gtest.h>

namespace bubblescope::traces {
namespace {

TEST(DistinctNames, TheShortestTrailingPartsThatDiffer) {
  struct Case {
    const char *a, *b, *nameA, *nameB;
  };
  const Case cases[] = {
      {"run/rank-00000.sqlite", "run/rank-00001.sqlite", "rank-00000.sqlite", "rank-00001.sqlite"},
      {"a/rank-00000.sqlite", "b/rank-00000.sqlite", "a/rank-00000.sqlite", "b/rank-00000.sqlite"},
      {"/x/job1/n0/rank-00000.sqlite", "/x/job2/n0/rank-00000.sqlite", "job1/n0/rank-00000.sqlite",
       "job2/n0/rank-00000.sqlite"},
      {"./a//rank.sqlite", "a/../b/rank.sqlite", "a/rank.sqlite", "b/rank.sqlite"},
      // One path ends the other, or both are one path: the paths as given.
      {"rank.sqlite", "run/rank.sqlite", "rank.sqlite", "run/rank.sqlite"},
      {"run/rank.sqlite", "run/rank.sqlite", "run/rank.sqlite", "run/rank.sqlite"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.a) + " vs " + c.b);
    const auto [a, b] = distinctNames(c.a, c.b);
    EXPECT_EQ(a, c.nameA);
    EXPECT_EQ(b, c.nameB);
  }
}

}  // namespace
}  // namespace bubblescope::traces
