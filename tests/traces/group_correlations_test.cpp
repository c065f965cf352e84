// A fused NCCL kernel in an agent's trace is tied to every call of its group, as the analysis
// reads fused kernels (one correlations row per call), whatever order the agent wrote them in.
#include "traces/sqlite/group_correlations.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "tests/support/temp_dir.h"
#include "traces/format/nccl_ids.h"
#include "traces/sqlite/trace_reader.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::traces {
namespace {

constexpr uint64_t kBlock = kNcclGroupIdBit | (uint64_t{7} << kNcclGroupBlockShift);
constexpr uint64_t kOtherBlock = kNcclGroupIdBit | (uint64_t{8} << kNcclGroupBlockShift);

void addCall(RankTrace& t, uint64_t id, NcclOp op, TimeNs start) {
  auto& n = *t.ncclCalls;
  n.start.push_back(start);
  n.end.push_back(start + 10);
  n.thread.push_back(t.threadIndex(100));
  n.op.push_back(op);
  n.peer.push_back(op == NcclOp::Send || op == NcclOp::Recv ? 1 : -1);
  n.count.push_back(4);
  n.dtype.push_back(7);
  n.bytes.push_back(16);
  n.comm.push_back(0xabcdef);
  n.commRank.push_back(0);
  n.commSize.push_back(2);
  n.streamHandle.push_back(0x5000);
  n.groupDepth.push_back(0);
  n.seq.push_back(1);
  n.id.push_back(id);
  n.source.push_back(NcclSource::Hook);
}

void addCorrelation(RankTrace& t, uint32_t correlation, uint64_t externalId) {
  t.correlations->correlation.push_back(correlation);
  t.correlations->externalKind.push_back(ExternalKind::NcclCall);
  t.correlations->externalId.push_back(externalId);
}

// As the agent records them: an ungrouped send (its kernel tied to the call itself); a group of
// a send and a receive, with a nested group inside, whose kernel is tied to the GroupEnd; a group
// of one all-reduce.
RankTrace agentTrace() {
  RankTrace t;
  t.meta.source = "bubblescope-agent";
  t.meta.rank = 0;
  addCall(t, 5, NcclOp::Send, 1000);
  addCorrelation(t, 30, 5);
  addCall(t, kBlock | kNcclGroupStartIndex, NcclOp::GroupStart, 2000);
  addCall(t, kBlock + 1, NcclOp::Send, 2010);
  addCall(t, kBlock + 2, NcclOp::GroupStart, 2020);
  addCall(t, kBlock + 3, NcclOp::Recv, 2030);
  addCall(t, kBlock + 4, NcclOp::GroupEnd, 2040);
  addCall(t, kBlock, NcclOp::GroupEnd, 2050);
  addCorrelation(t, 31, kBlock);
  addCall(t, kOtherBlock | kNcclGroupStartIndex, NcclOp::GroupStart, 3000);
  addCall(t, kOtherBlock + 1, NcclOp::AllReduce, 3010);
  addCall(t, kOtherBlock, NcclOp::GroupEnd, 3020);
  addCorrelation(t, 32, kOtherBlock);
  return t;
}

std::map<uint32_t, std::set<uint64_t>> callsByCorrelation(const RankTrace& t) {
  std::map<uint32_t, std::set<uint64_t>> out;
  for (size_t i = 0; i < t.correlations->size(); ++i) {
    EXPECT_EQ(t.correlations->externalKind[i], ExternalKind::NcclCall);
    out[t.correlations->correlation[i]].insert(t.correlations->externalId[i]);
  }
  return out;
}

TEST(GroupCorrelations, FusedKernelGetsOneRowPerCommunicationCallOfItsGroup) {
  RankTrace t = agentTrace();
  tieGroupKernelsToCalls(t);
  const auto calls = callsByCorrelation(t);
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls.at(30), (std::set<uint64_t>{5}));
  // The nested group's own start and end carry no data: not tied.
  EXPECT_EQ(calls.at(31), (std::set<uint64_t>{kBlock, kBlock + 1, kBlock + 3}));
  EXPECT_EQ(calls.at(32), (std::set<uint64_t>{kOtherBlock, kOtherBlock + 1}));
  EXPECT_EQ(t.correlations->size(), 6u);
}

TEST(GroupCorrelations, FilesOfOtherSourcesAreLeftAsWritten) {
  RankTrace t = agentTrace();
  t.meta.source = "kineto";
  tieGroupKernelsToCalls(t);
  EXPECT_EQ(t.correlations->size(), 3u);
}

TEST(GroupCorrelations, ReadingAnAgentFileTiesTheGroupKernelToItsSendAndReceive) {
  testing::TempDir dir;
  writeRankTrace(agentTrace(), dir / "rank-00000.sqlite");
  const RankTrace t = readRankTrace(dir / "rank-00000.sqlite");
  const auto calls = callsByCorrelation(t);
  EXPECT_EQ(calls.at(31), (std::set<uint64_t>{kBlock, kBlock + 1, kBlock + 3}));
  // Still sorted by correlation, as the model promises.
  EXPECT_TRUE(
      std::is_sorted(t.correlations->correlation.begin(), t.correlations->correlation.end()));
}

}  // namespace
}  // namespace bubblescope::traces
