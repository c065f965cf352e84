// How many of the matched collectives' members a run traced, each collective counted once: full
// collectives count all their members as traced, partial ones their communicator's size; the
// least traced share and whether every partial one is alike are kept for the sentences.
#include "analyzer/comm/collective_coverage.h"

#include <gtest/gtest.h>

namespace bubblescope::analysis {
namespace {

CommMatches matches(const std::vector<std::pair<int, TracedMembers>>& collectives) {
  CommMatches m;
  for (const auto& [traced, members] : collectives) {
    m.collectives.emplace_back(static_cast<size_t>(traced));
    m.collectiveMembers.push_back(members);
  }
  return m;
}

TEST(CollectiveCoverage, FullAndPartialCollectivesAddTheirMembers) {
  const CollectiveCoverage c = collectiveCoverage(matches({{2, {2, 128}}, {8, {}}, {2, {2, 128}}}));
  EXPECT_EQ(c.collectives, 3);
  EXPECT_EQ(c.partial, 2);
  EXPECT_EQ(c.traced, 12);
  EXPECT_EQ(c.members, 128 + 8 + 128);
  EXPECT_EQ(c.least.traced, 2);
  EXPECT_EQ(c.least.of, 128);
  EXPECT_TRUE(c.alike);
}

TEST(CollectiveCoverage, KeepsTheLeastTracedShareAndSaysWhenTheyDiffer) {
  const CollectiveCoverage c = collectiveCoverage(matches({{4, {4, 8}}, {2, {2, 64}}}));
  EXPECT_EQ(c.partial, 2);
  EXPECT_EQ(tracedMembersText(c.least), "2 of 64 members traced");
  EXPECT_FALSE(c.alike);
}

TEST(CollectiveCoverage, NoCollectivesCoverNothing) {
  const CollectiveCoverage c = collectiveCoverage(CommMatches{});
  EXPECT_EQ(c.collectives, 0);
  EXPECT_EQ(c.partial, 0);
  EXPECT_EQ(c.members, 0);
}

}  // namespace
}  // namespace bubblescope::analysis
