// The utilization headline: when copies dominate (more than half the busy device time, not of
// the span) and when most members of the collectives are untraced (fewer than half of them over
// the matched collectives), and what each sentence says. Tables of cases, built by hand.
#include "analyzer/utilization/headline.h"

#include <gtest/gtest.h>

namespace bubblescope::analysis {
namespace {

constexpr TimeNs kMs = 1'000'000;

UtilizationSplit split(TimeNs compute, TimeNs comm, TimeNs wait, TimeNs other, TimeNs idle) {
  UtilizationSplit s;
  s.compute = compute;
  s.exposedComm = comm;
  s.commWait = wait;
  s.otherBusy = other;
  s.idle = idle;
  s.span = s.sum();
  return s;
}

TEST(UtilizationHeadline, CopiesDominateWhenTheyHoldMoreThanHalfTheBusyTime) {
  struct Case {
    const char* what;
    UtilizationSplit s;
    bool dominate;
  } cases[] = {
      {"the FSDP capture: 940 of 969 ms copying", split(22, 0, 0, 940, 7), true},
      {"exactly half is not more than half", split(30, 10, 10, 50, 0), false},
      {"more than compute but not than compute, NCCL and waiting together",
       split(30, 25, 10, 40, 0), false},
      {"a mostly idle device that mostly copies", split(4, 0, 0, 6, 90), true},
      {"no copies", split(10, 0, 0, 0, 0), false},
      {"nothing busy at all", split(0, 0, 0, 0, 10), false},
  };
  for (const Case& c : cases) EXPECT_EQ(copiesDominate(c.s), c.dominate) << c.what;
}

TEST(UtilizationHeadline, MostMembersUntracedCountsEachCollectiveOnce) {
  struct Case {
    const char* what;
    CollectiveCoverage c;
    bool most;
  } cases[] = {
      {"2 of 128 in all 8", {8, 8, 16, 1024, {2, 128}, true}, true},
      {"every member traced", {8, 0, 16, 16, {}, true}, false},
      {"3 of 4 traced", {5, 5, 15, 20, {3, 4}, true}, false},
      {"exactly half traced is not most untraced", {5, 5, 10, 20, {2, 4}, true}, false},
      // 8 x 2 of 128 beside 100 full 8-member ones: 816 of 1824 traced.
      {"a minority partial, yet most members untraced", {108, 8, 816, 1824, {2, 128}, true}, true},
      {"no collectives", {}, false},
  };
  for (const Case& c : cases) EXPECT_EQ(mostMembersUntraced(c.c), c.most) << c.what;
}

TEST(UtilizationHeadline, CopiesSentenceNamesTheShareAndEachDirectionWithItsBytes) {
  const UtilizationSplit s = split(44'800'000, 0, 0, 1'880'900'000, 13 * kMs);
  const std::vector<CopyTraffic> copies = {
      {"HtoD", 1'841'600'000, uint64_t{51} << 30, 450},
      {"DtoD", 39'200'000, uint64_t{55} << 30, 450},
      {"memset", 130'000, 17'672, 22},
      {"DtoH", 8'000, 18, 4},  // would read 0.0 ms: left out
  };
  EXPECT_EQ(copiesSentence(s, copies, 2),
            "copies took 97.7% of the device's busy time (1880.9 of 1925.7 ms busy summed over 2 "
            "ranks; compute 44.8 ms): 1841.6 ms HtoD moving 51.0 GiB in 450 copies, 39.2 ms DtoD "
            "moving 55.0 GiB in 450 copies, 0.1 ms memset setting 17 KiB in 22 sets");
}

TEST(UtilizationHeadline, CopiesSentenceOfOneRankWithoutBytesOrDirection) {
  const UtilizationSplit s = split(10 * kMs, 0, 0, 30 * kMs, 0);
  const std::vector<CopyTraffic> copies = {{"unknown", 20 * kMs, 0, 1},
                                           {"array", 10 * kMs, 3 << 20, 2}};
  EXPECT_EQ(copiesSentence(s, copies, 1),
            "copies took 75.0% of the device's busy time (30.0 of 40.0 ms busy; compute 10.0 ms): "
            "20.0 ms copies of no recorded direction in 1 copy, 10.0 ms copies to or from CUDA "
            "arrays moving 3 MiB in 2 copies");
}

TEST(UtilizationHeadline, MembersSentenceSaysHowFewAndWhatTheWaitRestsOn) {
  const UtilizationSplit s = split(0, 0, 140'164'000, 0, 0);
  EXPECT_EQ(membersSentence({8, 8, 16, 1024, {2, 128}, true}, s),
            "most members of the NCCL collectives are not traced: 2 of 128 members traced in all "
            "8 collectives (1.6% of their members); the wait figures (140.2 ms) come from that "
            "minority, a lower bound on the job's wait");
  EXPECT_EQ(membersSentence({3, 2, 7, 24, {2, 16}, false}, s),
            "most members of the NCCL collectives are not traced: as few as 2 of 16 members traced "
            "in 2 of 3 collectives (29.2% of their members); the wait figures (140.2 ms) come from "
            "that minority, a lower bound on the job's wait");
  EXPECT_EQ(
      membersSentence({1, 1, 2, 128, {2, 128}, true}, s)
          .rfind("most members of the NCCL collectives are not traced: 2 of 128 members traced in "
                 "the one collective (1.6% of their members);",
                 0),
      0u);
}

TEST(UtilizationHeadline, SaysCopiesFirstThenMembersAndNothingWhenNeitherApplies) {
  UtilizationResult u;
  u.ranks.resize(1);
  u.total = split(10 * kMs, 0, 2 * kMs, 30 * kMs, 0);
  u.copies = {{"HtoD", 30 * kMs, uint64_t{1} << 30, 3}};
  u.collectives = {1, 1, 2, 128, {2, 128}, true};
  const std::vector<std::string> both = utilizationHeadline(u);
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0].rfind("copies took 71.4% of the device's busy time", 0), 0u) << both[0];
  EXPECT_EQ(both[1].rfind("most members of the NCCL collectives are not traced: 2 of 128", 0), 0u)
      << both[1];

  u.total = split(40 * kMs, 0, 2 * kMs, 30 * kMs, 0);
  u.collectives = {1, 0, 2, 2, {}, true};
  EXPECT_TRUE(utilizationHeadline(u).empty());
}

}  // namespace
}  // namespace bubblescope::analysis
