// The pure parts of NCCL capture: call ids and group blocks (what ties a grouped call to the
// kernels its ncclGroupEnd launched), op names, type sizes, communicator hashes and the
// communicator table; and the pool of CUPTI buffers.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "agent/cupti/buffer_pool.h"
#include "agent/nccl/comm_hash.h"
#include "agent/nccl/comm_table.h"
#include "agent/nccl/nccl_calls.h"
#include "agent/nccl/nccl_nvtx.h"

namespace bubblescope::agent {
namespace {

using traces::NcclOp;

TEST(NcclIds, GroupedCallsShareTheBlockOfTheGroupEndThatLaunchesThem) {
  NcclThread t;
  const uint64_t before = nextCallId(t);
  EXPECT_EQ(before & kGroupIdBit, 0u);

  const uint64_t start = openGroup(t);
  EXPECT_EQ(t.groupDepth, 1u);
  const uint64_t a = nextCallId(t);
  const uint64_t inner = openGroup(t);  // nested: a plain call of the outer block
  const uint64_t b = nextCallId(t);
  const uint64_t innerEnd = groupEndId(t);
  closeGroup(t);
  const uint64_t end = groupEndId(t);
  closeGroup(t);
  EXPECT_EQ(t.groupDepth, 0u);

  EXPECT_NE(end & kGroupIdBit, 0u);
  EXPECT_EQ(end & 0xFFFF, 0u);
  EXPECT_EQ(start, end | kGroupStartIndex);
  for (uint64_t id : {a, inner, b, innerEnd}) EXPECT_EQ(id >> 16, end >> 16);
  EXPECT_EQ(std::set<uint64_t>({start, a, inner, b, innerEnd, end}).size(), 6u);

  // The next group gets a new block; calls after it are plain again.
  const uint64_t next = openGroup(t);
  EXPECT_NE(next >> 16, end >> 16);
  closeGroup(t);
  EXPECT_EQ(nextCallId(t) & kGroupIdBit, 0u);
}

TEST(NcclIds, UnmatchedGroupEndLeavesTheDepthAtZero) {
  NcclThread t;
  const uint64_t id = groupEndId(t);
  closeGroup(t);
  EXPECT_EQ(t.groupDepth, 0u);
  EXPECT_EQ(id & kGroupIdBit, 0u);
}

TEST(NcclNames, ApiNamesMapToOpsAndOthersToUnknown) {
  EXPECT_EQ(traces::ncclOpOfApiName("ncclSend"), NcclOp::Send);
  EXPECT_EQ(traces::ncclOpOfApiName("ncclRecv"), NcclOp::Recv);
  EXPECT_EQ(traces::ncclOpOfApiName("ncclAllReduce"), NcclOp::AllReduce);
  EXPECT_EQ(traces::ncclOpOfApiName("ncclReduceScatter"), NcclOp::ReduceScatter);
  EXPECT_EQ(traces::ncclOpOfApiName("ncclGroupEnd"), NcclOp::GroupEnd);
  EXPECT_EQ(traces::ncclOpOfApiName("ncclCommInitRankConfig"), NcclOp::CommInitRank);
  EXPECT_EQ(traces::ncclOpOfApiName("ncclCommAbort"), NcclOp::CommDestroy);
  // ncclBcast: its ncclBroadcast nests inside.
  EXPECT_EQ(traces::ncclOpOfApiName("ncclBcast"), NcclOp::Unknown);
  EXPECT_EQ(traces::ncclOpOfApiName("ncclSendX"), NcclOp::Unknown);
  EXPECT_EQ(traces::ncclOpOfApiName(""), NcclOp::Unknown);
}

TEST(NcclNames, TypeSizesFollowNcclDataTypeAndSeqClassesSplitSendAndRecv) {
  EXPECT_EQ(ncclTypeSize(0), 1u);   // ncclInt8
  EXPECT_EQ(ncclTypeSize(4), 8u);   // ncclInt64
  EXPECT_EQ(ncclTypeSize(6), 2u);   // ncclFloat16
  EXPECT_EQ(ncclTypeSize(7), 4u);   // ncclFloat32
  EXPECT_EQ(ncclTypeSize(9), 2u);   // ncclBfloat16
  EXPECT_EQ(ncclTypeSize(11), 1u);  // ncclFloat8e5m2
  EXPECT_EQ(ncclTypeSize(12), 0u);
  EXPECT_EQ(ncclTypeSize(-1), 0u);
  EXPECT_EQ(seqClassOf(NcclOp::AllReduce), seqClassOf(NcclOp::Broadcast));
  EXPECT_NE(seqClassOf(NcclOp::Send), seqClassOf(NcclOp::Recv));
  EXPECT_EQ(seqClassOf(NcclOp::GroupStart), -1);
  EXPECT_EQ(seqClassOf(NcclOp::CommInitRank), -1);
}

TEST(CommHash, EqualIdsHashEquallyAndSplitsDependOnParentCountAndColor) {
  char a[128] = {}, b[128] = {};
  a[100] = b[100] = 7;
  EXPECT_EQ(commHashOfUniqueId(a, sizeof a), commHashOfUniqueId(b, sizeof b));
  b[127] = 1;
  EXPECT_NE(commHashOfUniqueId(a, sizeof a), commHashOfUniqueId(b, sizeof b));
  const uint64_t parent = commHashOfUniqueId(a, sizeof a);
  EXPECT_EQ(commHashOfSplit(parent, 1, 0), commHashOfSplit(parent, 1, 0));
  EXPECT_NE(commHashOfSplit(parent, 1, 0), commHashOfSplit(parent, 2, 0));
  EXPECT_NE(commHashOfSplit(parent, 1, 0), commHashOfSplit(parent, 1, 1));
  // Where the input is cut between calls matters, as in NCCL's hash.
  NcclHasher whole, parts;
  whole.eat(a, 16);
  parts.eat(a, 8);
  parts.eat(a + 8, 8);
  EXPECT_NE(whole.digest(), parts.digest());
}

TEST(CommTable, FindsLiveCommunicatorsAndForgetsDestroyedOnes) {
  CommTable& table = commTable();
  int x = 0, y = 0;
  EXPECT_EQ(table.find(&x), nullptr);
  CommInfo* ix = table.insert(&x, 11, 1, 4);
  ASSERT_NE(ix, nullptr);
  ASSERT_NE(table.insert(&y, 22, 0, 2), nullptr);
  EXPECT_EQ(table.find(&x), ix);
  EXPECT_EQ(table.find(&x)->hash.load(), 11u);
  EXPECT_EQ(table.find(&y)->size.load(), 2);
  EXPECT_EQ(ix->next(SeqClass::Collective), 1u);
  EXPECT_EQ(ix->next(SeqClass::Collective), 2u);
  EXPECT_EQ(ix->next(SeqClass::Send), 1u);
  table.erase(&x);
  EXPECT_EQ(table.find(&x), nullptr);
  EXPECT_NE(table.find(&y), nullptr);
  // A communicator made again at the same address starts afresh.
  CommInfo* again = table.insert(&x, 33, 2, 4);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->next(SeqClass::Collective), 1u);
  EXPECT_EQ(table.find(nullptr), nullptr);
  table.erase(&x);
  table.erase(&y);
}

TEST(BufferPool, HandsOutEachBufferOnceAndRefusesWhenAllAreInUse) {
  BufferPool pool;
  ASSERT_TRUE(pool.init(5000, 3, 1));
  EXPECT_EQ(pool.bufferBytes() % 4096, 0u);  // rounded up to pages
  uint8_t* a = pool.take();
  uint8_t* b = pool.take();
  uint8_t* c = pool.take();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(std::set<uint8_t*>({a, b, c}).size(), 3u);
  EXPECT_EQ(pool.take(), nullptr);
  EXPECT_EQ(pool.inUse(), 3u);
  pool.give(b);
  EXPECT_EQ(pool.take(), b);
  uint8_t outside = 0;
  EXPECT_FALSE(pool.owns(&outside));
  EXPECT_FALSE(pool.owns(a + 1));
  pool.give(&outside);  // not ours: ignored
  EXPECT_EQ(pool.inUse(), 3u);
}

TEST(BufferPool, ThreadsTakingAndGivingNeverShareABuffer) {
  BufferPool pool;
  ASSERT_TRUE(pool.init(4096, 4, 0));
  std::vector<std::thread> threads;
  std::atomic<int> shared{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      const auto mark = static_cast<uint8_t>(t + 1);
      for (int i = 0; i < 20000; ++i) {
        volatile uint8_t* b = pool.take();
        if (b == nullptr) continue;
        if (b[0] != 0) shared.fetch_add(1);  // another thread holds it
        b[0] = mark;
        for (int k = 0; k < 8; ++k) {
          if (b[0] != mark) shared.fetch_add(1);
        }
        b[0] = 0;
        pool.give(const_cast<uint8_t*>(b));
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(shared.load(), 0);
  EXPECT_EQ(pool.inUse(), 0u);
}

}  // namespace
}  // namespace bubblescope::agent
