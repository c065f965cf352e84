// The NVTX range names are a contract with the analyzer (analysis.md §4): pin them literally.
#include "reference_engine/executor/range_names.h"

#include <gtest/gtest.h>

namespace bubblescope::engine {
namespace {

TEST(RangeNames, OpsFollowTheBubblescopeConvention) {
  EXPECT_EQ(opRangeName({OpKind::F, 3, 0}), "F mb=3");
  EXPECT_EQ(opRangeName({OpKind::B, 3, 0}), "B mb=3");
  EXPECT_EQ(opRangeName({OpKind::W, 3, 0}), "W mb=3");
  EXPECT_EQ(opRangeName({OpKind::BW, 3, 0}), "BW mb=3");
  EXPECT_EQ(opRangeName({OpKind::F, 3, 1}), "F mb=3 ch=1");
  EXPECT_EQ(opRangeName({OpKind::W, 0, 2}), "W mb=0 ch=2");
}

TEST(RangeNames, TransfersNameTheirDataAndPeer) {
  EXPECT_EQ(sendRangeName(false, 3, 0, 2), "SEND F mb=3 to=2");
  EXPECT_EQ(sendRangeName(true, 3, 0, 1), "SEND B mb=3 to=1");
  EXPECT_EQ(sendRangeName(false, 3, 1, 0), "SEND F mb=3 ch=1 to=0");
  EXPECT_EQ(recvRangeName(false, 3, 0, 1), "RECV F mb=3 from=1");
  EXPECT_EQ(recvRangeName(true, 3, 0, 3), "RECV B mb=3 from=3");
  EXPECT_EQ(recvRangeName(true, 3, 1, 2), "RECV B mb=3 ch=1 from=2");
}

TEST(RangeNames, StepAndPhases) {
  EXPECT_EQ(stepRangeName(12), "step 12");
  EXPECT_STREQ(kGradSyncRange, "grad_sync");
  EXPECT_STREQ(kOptimizerRange, "optimizer");
  EXPECT_STREQ(kDataloaderRange, "dataloader");
}

}  // namespace
}  // namespace bubblescope::engine
