// The communicator hash every stage computes alike: stable, and different for another group.
#include "reference_engine/executor/nccl_ranges.h"

#include <gtest/gtest.h>

namespace bubblescope::engine {
namespace {

TEST(CommunicatorHash, EveryMemberComputesTheSameAndGroupsDiffer) {
  const uint64_t pipeline = communicatorHash("pipeline", {0, 1, 2, 3});
  EXPECT_EQ(communicatorHash("pipeline", {0, 1, 2, 3}), pipeline);
  EXPECT_NE(pipeline, 0u);
  EXPECT_NE(communicatorHash("pipeline", {0, 1, 2}), pipeline);
  EXPECT_NE(communicatorHash("pipeline", {0, 1, 23}), communicatorHash("pipeline", {0, 12, 3}));
  EXPECT_NE(communicatorHash("data", {0, 1, 2, 3}), pipeline);
}

}  // namespace
}  // namespace bubblescope::engine
