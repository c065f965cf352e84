// Stages read off who sends to whom: chains in order from the end that sends first.
#include "analyzer/infer/p2p_chain.h"

#include <gtest/gtest.h>

namespace bubblescope::analysis {
namespace {

using Chain = std::vector<uint32_t>;

TEST(P2pChain, RanksInAnyOrderFormOneChainFromTheFirstSender) {
  // Pipeline 2 -> 0 -> 3 -> 1: activations first, gradients back later.
  const std::vector<P2pEdge> edges = {{2, 0, 10}, {0, 3, 20}, {3, 1, 30},
                                      {1, 3, 40}, {3, 0, 50}, {0, 2, 60}};
  const P2pChains c = p2pChains(edges, 4);
  ASSERT_EQ(c.chains.size(), 1u);
  EXPECT_EQ(c.chains[0], (Chain{2, 0, 3, 1}));
  EXPECT_EQ(c.notChains, 0);
}

TEST(P2pChain, TwoReplicasAreTwoChainsAndUnconnectedRanksNone) {
  const std::vector<P2pEdge> edges = {{0, 1, 10}, {1, 0, 20}, {2, 3, 10}, {3, 2, 20}};
  const P2pChains c = p2pChains(edges, 5);
  ASSERT_EQ(c.chains.size(), 2u);
  EXPECT_EQ(c.chains[0], (Chain{0, 1}));
  EXPECT_EQ(c.chains[1], (Chain{2, 3}));
}

TEST(P2pChain, RingOrStarIsNoPipeline) {
  // A ring (all-to-all by p2p, context parallel) has no ends; a star is not a chain.
  const std::vector<P2pEdge> ring = {{0, 1, 1}, {1, 2, 2}, {2, 0, 3}};
  EXPECT_TRUE(p2pChains(ring, 3).chains.empty());
  EXPECT_EQ(p2pChains(ring, 3).notChains, 1);
  const std::vector<P2pEdge> star = {{0, 1, 1}, {0, 2, 2}, {0, 3, 3}};
  EXPECT_TRUE(p2pChains(star, 4).chains.empty());
}

TEST(P2pChain, SelfAndOutOfRangeEdgesAreIgnored) {
  const std::vector<P2pEdge> edges = {{0, 0, 1}, {0, 9, 2}, {1, 0, 3}};
  const P2pChains c = p2pChains(edges, 2);
  ASSERT_EQ(c.chains.size(), 1u);
  EXPECT_EQ(c.chains[0], (Chain{1, 0}));
}

}  // namespace
}  // namespace bubblescope::analysis
