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

// A trace names a few process groups on every call: each is held once, and a call's fields
// read its members from there as from its own copy.
TEST(Collectives, ProcessGroupsAreHeldOncePerNameAndRanks) {
  ProcessGroups groups;
  const ProcessGroup* pp = groups.intern("3", "[2, 6]");
  ASSERT_NE(pp, nullptr);
  EXPECT_EQ(pp->name, "3");
  EXPECT_EQ(pp->ranks, (std::vector<int>{2, 6}));
  EXPECT_EQ(groups.intern("3", "[2, 6]"), pp);
  EXPECT_NE(groups.intern("3", "[2, 7]"), pp);
  EXPECT_NE(groups.intern("4", "[2, 6]"), pp);
  EXPECT_NE(groups.intern("", "[2, 6]"), nullptr);
  EXPECT_EQ(groups.intern("", ""), nullptr);

  CommRecord r;
  r.op = NcclOp::Send;
  r.peer = 6;  // global, as c10d writes it
  r.group = pp;
  const NcclCallFields c = callFieldsOf(r, 2);
  EXPECT_EQ(c.commRank, 0);
  EXPECT_EQ(c.peer, 1);  // its place in the group
  EXPECT_EQ(c.commSize, 2);
  EXPECT_NE(c.comm, 0u);
  EXPECT_EQ(callFieldsOf(r, 2).comm, c.comm);

  CommRecord none;  // no group named: the peer stays global, the call knows no rank of its own
  none.op = NcclOp::Send;
  none.peer = 6;
  const NcclCallFields n = callFieldsOf(none, 2);
  EXPECT_EQ(n.commRank, -1);
  EXPECT_EQ(n.peer, 6);
  EXPECT_EQ(n.commSize, -1);
  EXPECT_EQ(n.comm, 0u);
}

}  // namespace
}  // namespace bubblescope::traces::import
