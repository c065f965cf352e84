// Collectives some of whose members the run does not hold: their traced members are matched
// among themselves and marked partial (how many of how many), by the size the calls give, else
// the job's world size; a run that holds every member, or every rank of the world, has no marks,
// and one traced member alone is matched with nobody. The marks reach the kernels, and a warning
// says how many such collectives there are.
#include "analyzer/comm/comm_match.h"

#include <gtest/gtest.h>

#include "analyzer/comm/comm_warnings.h"
#include "analyzer/recognize/kernel_attribution.h"
#include "tests/analyzer/comm/collective_run.h"

namespace bubblescope::analysis {
namespace {

using testing::collectiveRun;
using testing::CollectiveRunSpec;
using testing::kCollectiveMs;

CallMatches matchEveryCall(const traces::Run& run) {
  std::vector<std::vector<int32_t>> calls(run.ranks.size());
  for (size_t r = 0; r < run.ranks.size(); ++r) {
    for (size_t i = 0; i < run.ranks[r].ncclCalls->size(); ++i) {
      calls[r].push_back(static_cast<int32_t>(i));
    }
  }
  return matchCalls(run, calls);
}

TEST(PartialCollectives, TwoOf128MembersTracedAreMatchedAmongThemselvesAndMarked) {
  const CallMatches m = matchEveryCall(collectiveRun({.traced = 2, .commSize = 128, .calls = 3}));
  ASSERT_EQ(m.collectives.size(), 3u);
  ASSERT_EQ(m.collectiveMembers.size(), 3u);
  for (size_t c = 0; c < 3; ++c) {
    EXPECT_EQ(m.collectives[c].size(), 2u) << c;
    EXPECT_TRUE(m.collectiveMembers[c].partial()) << c;
    EXPECT_EQ(m.collectiveMembers[c].traced, 2) << c;
    EXPECT_EQ(m.collectiveMembers[c].of, 128) << c;
  }
  EXPECT_TRUE(m.collectiveLeft.empty());
  EXPECT_EQ(tracedMembersText(m.collectiveMembers[0]), "2 of 128 members traced");
}

TEST(PartialCollectives, EveryMemberTracedGivesNoMarks) {
  const CallMatches m = matchEveryCall(collectiveRun({.traced = 2, .world = 2, .commSize = 2}));
  ASSERT_EQ(m.collectives.size(), 1u);
  ASSERT_EQ(m.collectiveMembers.size(), 1u);
  EXPECT_FALSE(m.collectiveMembers[0].partial());
  EXPECT_EQ(m.collectiveMembers[0].of, 0);
}

TEST(PartialCollectives, WithoutASizeFromTheCallsTheWorldSizeIsTheCommunicators) {
  const CallMatches m = matchEveryCall(collectiveRun({.traced = 2, .world = 128, .commSize = -1}));
  ASSERT_EQ(m.collectiveMembers.size(), 1u);
  EXPECT_EQ(m.collectiveMembers[0].traced, 2);
  EXPECT_EQ(m.collectiveMembers[0].of, 128);
}

TEST(PartialCollectives, ARunOfEveryRankOfTheWorldHasNoPartialSubGroup) {
  // Every rank of a world of 3 traced; the all-reduces, whose calls give no size, are ranks 0 and
  // 1's only (a sub-group): the run holds every member there is.
  traces::Run run = collectiveRun({.traced = 3, .world = 3, .commSize = -1});
  run.ranks[2].ncclCalls.reset();
  const CallMatches m = matchEveryCall(run);
  ASSERT_EQ(m.collectives.size(), 1u);
  EXPECT_EQ(m.collectives[0].size(), 2u);
  ASSERT_EQ(m.collectiveMembers.size(), 1u);
  EXPECT_FALSE(m.collectiveMembers[0].partial());
  // Nor with the world size unknown.
  const CallMatches unknown =
      matchEveryCall(collectiveRun({.traced = 2, .world = 0, .commSize = -1}));
  ASSERT_EQ(unknown.collectiveMembers.size(), 1u);
  EXPECT_FALSE(unknown.collectiveMembers[0].partial());
}

TEST(PartialCollectives, OneTracedMemberAloneIsMatchedWithNobody) {
  const CallMatches m = matchEveryCall(collectiveRun({.traced = 1, .commSize = 128, .calls = 2}));
  EXPECT_TRUE(m.collectives.empty());
  EXPECT_EQ(m.collectiveLeft.size(), 2u);
}

// The kernels: matched across the traced members, split at the last one's start, marked.
CommMatches splitKernels(const traces::Run& run, std::vector<RankOps>& ops) {
  ops.resize(run.ranks.size());
  for (size_t r = 0; r < run.ranks.size(); ++r) attributeKernels(run.ranks[r], ops[r], {});
  const CommMatches comms = matchComms(run, ops);
  splitCommKernels(comms, ops);
  return comms;
}

TEST(PartialCollectives, KernelsOfAPartialCollectiveWaitForTheTracedMembersAndSaySo) {
  const traces::Run run = collectiveRun({.traced = 2, .commSize = 128});
  std::vector<RankOps> ops;
  splitKernels(run, ops);
  for (size_t r = 0; r < 2; ++r) {
    ASSERT_EQ(ops[r].commKernels.size(), 1u) << r;
    const CommKernel& k = ops[r].commKernels[0];
    EXPECT_TRUE(k.matched) << r;
    EXPECT_EQ(k.transferStart, 14 * kCollectiveMs) << r;  // rank 1's kernel started last
    EXPECT_EQ(k.members.traced, 2) << r;
    EXPECT_EQ(k.members.of, 128) << r;
  }
}

TEST(PartialCollectives, KernelsOfAFullCollectiveAreNotMarked) {
  const traces::Run run = collectiveRun({.traced = 2, .world = 2, .commSize = 2});
  std::vector<RankOps> ops;
  splitKernels(run, ops);
  for (size_t r = 0; r < 2; ++r) {
    ASSERT_EQ(ops[r].commKernels.size(), 1u) << r;
    EXPECT_TRUE(ops[r].commKernels[0].matched) << r;
    EXPECT_FALSE(ops[r].commKernels[0].members.partial()) << r;
  }
}

TEST(PartialCollectives, AWarningSaysHowManyCollectivesAndFromHowManyMembers) {
  const traces::Run run = collectiveRun({.traced = 2, .commSize = 128, .calls = 3});
  std::vector<RankOps> ops;
  const std::vector<std::string> w = commWarnings(splitKernels(run, ops));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].rfind("3 NCCL collective(s) ran on communicators with members the run does not "
                       "hold (2 of 128 members traced)",
                       0),
            0u)
      << w[0];

  const traces::Run full = collectiveRun({.traced = 2, .world = 2, .commSize = 2});
  EXPECT_TRUE(commWarnings(splitKernels(full, ops)).empty());
}

TEST(PartialCollectives, CollectivesTracedFromDifferentSharesSayTheSmallest) {
  CommMatches m;
  m.collectiveMembers = {{2, 8}, {0, 0}, {2, 128}, {4, 8}};
  const std::vector<std::string> w = commWarnings(m);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("3 NCCL collective(s)"), std::string::npos) << w[0];
  EXPECT_NE(w[0].find("(as few as 2 of 128 members traced)"), std::string::npos) << w[0];
}

}  // namespace
}  // namespace bubblescope::analysis
