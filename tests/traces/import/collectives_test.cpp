// Collective and dtype names as PyTorch and NCCL write them map to the model's NcclOp and
// ncclDataType_t.
#include <gtest/gtest.h>

#include "traces/import/chrome_json/kineto/kineto_comms.h"
#include "traces/import/collectives.h"

namespace bubblescope::traces::import {
namespace {

TEST(Collectives, C10dNamesMapToNcclOps) {
  EXPECT_EQ(collectiveOp("allreduce"), NcclOp::AllReduce);
  EXPECT_EQ(collectiveOp("_allgather_base"), NcclOp::AllGather);
  EXPECT_EQ(collectiveOp("all_gather_into_tensor_coalesced"), NcclOp::AllGather);
  EXPECT_EQ(collectiveOp("_reduce_scatter_base"), NcclOp::ReduceScatter);
  EXPECT_EQ(collectiveOp("all_to_all"), NcclOp::AllToAll);
  EXPECT_EQ(collectiveOp("send"), NcclOp::Send);
  EXPECT_EQ(collectiveOp("recv"), NcclOp::Recv);
  EXPECT_EQ(collectiveOp("broadcast"), NcclOp::Broadcast);
  EXPECT_EQ(collectiveOp("barrier"), NcclOp::AllReduce);
  EXPECT_EQ(collectiveOp("wait"), std::nullopt);
  EXPECT_EQ(collectiveOp("coalesced"), std::nullopt);
}

TEST(Collectives, NcclApiNamesMapToNcclOps) {
  EXPECT_EQ(ncclApiOp("ncclSend"), NcclOp::Send);
  EXPECT_EQ(ncclApiOp("ncclAllReduce"), NcclOp::AllReduce);
  EXPECT_EQ(ncclApiOp("ncclGroupStart"), NcclOp::GroupStart);
  EXPECT_EQ(ncclApiOp("ncclCommInitRank"), NcclOp::CommInitRank);
  EXPECT_EQ(ncclApiOp("cudaMalloc"), std::nullopt);
}

TEST(Collectives, ProcessGroupTitlesGiveTheOpAndThePeer) {
  auto send = parseNcclTitle("nccl:send 0->1");
  ASSERT_TRUE(send);
  EXPECT_EQ(send->op, NcclOp::Send);
  EXPECT_EQ(send->peer, 1);
  auto recv = parseNcclTitle("nccl:recv 3<-2");
  ASSERT_TRUE(recv);
  EXPECT_EQ(recv->op, NcclOp::Recv);
  EXPECT_EQ(recv->peer, 2);
  auto all = parseNcclTitle("nccl:_all_gather_base");
  ASSERT_TRUE(all);
  EXPECT_EQ(all->op, NcclOp::AllGather);
  EXPECT_EQ(all->peer, -1);
  EXPECT_FALSE(parseNcclTitle("nccl:coalesced"));
  EXPECT_FALSE(parseNcclTitle("ProfilerStep#3"));
}

TEST(Collectives, TorchDtypesHaveNcclTypesAndSizes) {
  EXPECT_EQ(torchDataType("Float")->nccl, 7);
  EXPECT_EQ(torchDataType("Float")->bytes, 4);
  EXPECT_EQ(torchDataType("BFloat16")->nccl, 9);
  EXPECT_EQ(torchDataType("BFloat16")->bytes, 2);
  EXPECT_EQ(torchDataType("Long")->bytes, 8);
  EXPECT_EQ(torchDataType("Byte")->nccl, 1);
  EXPECT_FALSE(torchDataType("ComplexFloat"));
}

TEST(Collectives, RankListsParseFromTextOrArrays) {
  EXPECT_EQ(parseRankList("[0, 1, 2, 3]"), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(parseRankList("4,12"), (std::vector<int>{4, 12}));
  EXPECT_TRUE(parseRankList("[]").empty());
  EXPECT_EQ(parseRankList("[1, 88888888888888, 2]"), (std::vector<int>{1, 2}));
}

}  // namespace
}  // namespace bubblescope::traces::import
