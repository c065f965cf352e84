// A rank's recognised ops as they travel between processes under MPI (rank_ops_codec.h): what is
// kept beside the ops and comms travels with them, and a message whose lists disagree is refused.
#include "analyzer/recognize/rank_ops_codec.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace bubblescope::analysis {
namespace {

RankOps withComms() {
  RankOps ops;
  ops.comms = {RecognizedComm{.send = true, .mb = 0, .peer = 1, .start = 10, .end = 20},
               RecognizedComm{.send = false, .mb = 1, .peer = 0, .start = 30, .end = 35}};
  ops.commLaunches = {4, kNoLaunch};
  ops.ops = {{.op = Op{OpKind::F, 0, 0}, .start = 0, .end = 9}};
  ops.opKernels = {{.firstLaunch = 1, .begin = 0, .end = 0}};
  ops.opHosts = {{1, 8}};
  return ops;
}

RankOps roundTrip(const RankOps& ops) {
  std::string bytes;
  traces::ByteWriter w(bytes);
  encodeRankOps(ops, w);
  traces::ByteReader r(bytes);
  return decodeRankOps(r);
}

TEST(RankOpsCodec, TheCommsLaunchesAndTheOpsKernelsAndHostRangesTravelWithThem) {
  const RankOps back = roundTrip(withComms());
  ASSERT_EQ(back.comms.size(), 2u);
  EXPECT_EQ(back.launchOf(0), 4);
  EXPECT_EQ(back.launchOf(1), kNoLaunch);
  EXPECT_EQ(back.kernelsOf(0).firstLaunch, 1);
  EXPECT_EQ(back.hostOf(0), (HostSpan{1, 8}));
  RankOps asBegun = withComms();
  asBegun.commLaunches.clear();  // posted as they began: none travel
  EXPECT_EQ(roundTrip(asBegun).launchOf(1), 30);
}

TEST(RankOpsCodec, ListsBesideTheRecordsThatDisagreeAreRefused) {
  RankOps ops = withComms();
  ops.commLaunches.pop_back();
  EXPECT_THROW(roundTrip(ops), std::runtime_error);
  ops = withComms();
  ops.opKernels.push_back({});
  EXPECT_THROW(roundTrip(ops), std::runtime_error);
  ops = withComms();
  ops.opHosts.push_back({});
  EXPECT_THROW(roundTrip(ops), std::runtime_error);
}

}  // namespace
}  // namespace bubblescope::analysis
