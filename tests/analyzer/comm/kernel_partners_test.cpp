// The flat per-rank lists of who each NCCL kernel waited for: every pair once, a kernel's
// partners in (rank, kernel) order whatever order they came in, kernels with none empty, and a
// pair naming a kernel the rank does not have dropped rather than read past its list.
#include "analyzer/comm/kernel_partners.h"

#include <gtest/gtest.h>

#include <vector>

namespace bubblescope::analysis {
namespace {

std::vector<KernelRef> listOf(const KernelPartners& p, size_t rank, size_t kernel) {
  const auto s = p.of(rank, kernel);
  return {s.begin(), s.end()};
}

TEST(KernelPartners, EachKernelListsWhatItWaitedForOnceInOrder) {
  const KernelRef a{0, 1}, b{1, 0}, c{2, 3}, d{1, 2};
  // Out of order, with repeats, as a collective's members and a send/recv pair add them.
  const KernelPartners p({{a, c}, {a, b}, {b, a}, {a, c}, {c, a}, {a, d}, {b, a}},
                         {3, 4, 5});
  EXPECT_EQ(p.ranks(), 3u);
  EXPECT_EQ(p.kernels(0), 3u);
  EXPECT_EQ(p.kernels(1), 4u);
  EXPECT_EQ(p.kernels(2), 5u);
  EXPECT_EQ(listOf(p, 0, 1), (std::vector<KernelRef>{b, d, c}));
  EXPECT_EQ(listOf(p, 1, 0), (std::vector<KernelRef>{a}));
  EXPECT_EQ(listOf(p, 2, 3), (std::vector<KernelRef>{a}));
  EXPECT_TRUE(listOf(p, 0, 0).empty());
  EXPECT_TRUE(listOf(p, 0, 2).empty());
  EXPECT_TRUE(listOf(p, 1, 2).empty());  // d waited for nobody: it is only a partner
  EXPECT_TRUE(listOf(p, 2, 4).empty());
}

TEST(KernelPartners, APairBeyondTheRanksKernelsIsDropped) {
  const KernelPartners p({{{0, 7}, {1, 0}}, {{5, 0}, {0, 0}}, {{1, 0}, {0, 0}}}, {2, 1});
  EXPECT_EQ(p.ranks(), 2u);
  EXPECT_TRUE(listOf(p, 0, 0).empty());
  EXPECT_TRUE(listOf(p, 0, 1).empty());
  EXPECT_EQ(listOf(p, 1, 0), (std::vector<KernelRef>{{0, 0}}));
}

TEST(KernelPartners, NoPairsAndNoKernels) {
  const KernelPartners none({}, {0, 2});
  EXPECT_EQ(none.kernels(0), 0u);
  EXPECT_TRUE(listOf(none, 1, 1).empty());
  const KernelPartners empty;
  EXPECT_EQ(empty.ranks(), 0u);
}

}  // namespace
}  // namespace bubblescope::analysis
