// Sends and receives that name no peer (an nsys export without NCCL's payloads) take their
// neighbours from the labelled ops: a send goes where the op before it sends its output, a
// receive comes from where the op after it takes its input, or, where each neighbour has a
// stream of its own, from the neighbour its stream serves. Each link's calls then pair in posting
// order, and the pairs' kernels say how far that holds.
#include "analyzer/comm/posting_order.h"

#include <gtest/gtest.h>

#include "analyzer/analyze.h"

namespace bubblescope::analysis {
namespace {

using engine::OpKind;
using traces::NcclOp;

// A stage's trace and ops, built call by call: each call runs on a kernel of its own.
struct Stage {
  traces::RankTrace trace;
  RankOps ops;

  void op(OpKind kind, int mb, TimeNs launch, int chunk = 0) {
    RecognizedOp o;
    o.op = {kind, mb, chunk};
    o.start = launch + 1'000;
    o.end = launch + 900'000;
    ops.ops.push_back(o);
    ops.opHosts.push_back({launch, o.end});
  }

  // A send or receive posted at `posted` whose kernel runs [start, end) on `stream`.
  void call(NcclOp op, TimeNs posted, TimeNs start, TimeNs end, traces::StreamIndex stream = 0) {
    traces::NcclCall c;
    c.start = posted;
    c.end = posted + 5'000;
    c.op = op;
    c.id = trace.ncclCalls->size() + 1;
    trace.ncclCalls->push(c);
    trace.kernels->start.push_back(start);
    trace.kernels->end.push_back(end);
    trace.kernels->stream.push_back(stream);
    trace.kernels->name.push_back(0);
    trace.kernels->correlation.push_back(0);
    CommKernel k;
    k.start = start;
    k.end = end;
    k.kernel = static_cast<uint32_t>(trace.kernels->size() - 1);
    k.callBegin = static_cast<uint32_t>(ops.commCalls.size());
    ops.commCalls.push_back(static_cast<int32_t>(trace.ncclCalls->size() - 1));
    k.callEnd = static_cast<uint32_t>(ops.commCalls.size());
    ops.commKernels.push_back(k);
  }
};

struct Pipeline {
  traces::Run run;
  std::vector<RankOps> ops;
  PipelinePlaces places;

  explicit Pipeline(std::vector<Stage> stages,
                    engine::ChunkLayout layout = engine::ChunkLayout::Looped, int v = 1) {
    std::vector<std::vector<size_t>> row;
    for (size_t s = 0; s < stages.size(); ++s) {
      stages[s].trace.meta.rank = static_cast<int>(s);
      run.ranks.push_back(std::move(stages[s].trace));
      ops.push_back(std::move(stages[s].ops));
      row.push_back({s});
    }
    places.ranksOf = {row};
    engine::Schedule l;
    l.p = static_cast<int>(stages.size());
    l.v = v;
    l.layout = layout;
    places.layouts = {l};
  }
};

// A 3-stage 1F1B step of two microbatches, as torch posts it on one stream per stage: each
// send after the op that made its data, each receive before the op it feeds. `message` gives
// each transfer both its calls, whose kernels end together at `end`.
struct ThreeStages {
  Stage s[3];

  void message(int from, int to, TimeNs sent, TimeNs received, TimeNs end) {
    s[from].call(NcclOp::Send, sent, sent + 10'000, end);
    s[to].call(NcclOp::Recv, received, received + 10'000, end);
  }
};

Pipeline threeStages() {
  ThreeStages j;
  j.s[0].op(OpKind::F, 0, 0);
  j.s[0].op(OpKind::F, 1, 1'000'000);
  j.s[0].op(OpKind::BW, 0, 4'600'000);
  j.s[0].op(OpKind::BW, 1, 5'600'000);
  j.s[1].op(OpKind::F, 0, 1'000'000);
  j.s[1].op(OpKind::F, 1, 2'000'000);
  j.s[1].op(OpKind::BW, 0, 3'500'000);
  j.s[1].op(OpKind::BW, 1, 4'500'000);
  j.s[2].op(OpKind::F, 0, 1'960'000);
  j.s[2].op(OpKind::BW, 0, 2'300'000);
  j.s[2].op(OpKind::F, 1, 3'050'000);
  j.s[2].op(OpKind::BW, 1, 3'300'000);
  // Stage 1's calls in the order it posts them: receive F0's input, send its output, and so on.
  j.message(0, 1, 900'000, 500'000, 1'000'000);
  j.message(1, 2, 1'900'000, 1'500'000, 1'950'000);
  j.message(0, 1, 1'900'000, 1'950'000, 2'000'000);
  j.message(1, 2, 2'900'000, 2'850'000, 3'000'000);
  j.message(2, 1, 2'800'000, 3'000'000, 3'450'000);
  j.message(1, 0, 4'400'000, 2'000'000, 4'500'000);
  j.message(2, 1, 3'800'000, 4'450'000, 4'500'000);
  j.message(1, 0, 5'400'000, 5'000'000, 5'500'000);
  return Pipeline({std::move(j.s[0]), std::move(j.s[1]), std::move(j.s[2])});
}

TEST(PostingOrder, SendsFollowTheirOpAndReceivesFeedTheOpAfterThem) {
  const Pipeline pl = threeStages();
  const PostingOrderPeers peers = peersByPostingOrder(pl.run, pl.ops, pl.places);
  EXPECT_EQ(peers.withoutPeer, 16u);
  EXPECT_EQ(peers.given, 16u);
  // The ends have one neighbour each; the middle stage's calls go by its ops.
  EXPECT_EQ(peers.peerOf[0], (std::vector<int32_t>(4, 1)));
  EXPECT_EQ(peers.peerOf[1], (std::vector<int32_t>{0, 2, 0, 2, 2, 0, 2, 0}));
  EXPECT_EQ(peers.peerOf[2], (std::vector<int32_t>(4, 1)));
}

// Each link's calls pair in posting order: every pair is one transfer, whose kernels end
// together.
TEST(PostingOrder, EachLinkPairsInPostingOrder) {
  const Pipeline pl = threeStages();
  const PostingOrderPeers peers = peersByPostingOrder(pl.run, pl.ops, pl.places);
  const CommMatches m = matchComms(pl.run, pl.ops, &peers.peerOf);
  ASSERT_EQ(m.p2p.size(), 8u);
  EXPECT_EQ(m.p2pByPostingOrder, 16);
  EXPECT_EQ(m.p2pWithoutPeer, 0);
  for (const P2pMatch& p : m.p2p) {
    EXPECT_TRUE(p.byPostingOrder);
    EXPECT_EQ(pl.ops[p.sendKernel.rank].commKernels[p.sendKernel.kernel].end,
              pl.ops[p.recvKernel.rank].commKernels[p.recvKernel.kernel].end)
        << "rank " << p.sendKernel.rank << " call " << p.sendCall << " -> rank "
        << p.recvKernel.rank << " call " << p.recvCall;
  }
  const PostingOrderJudgement j = judgePostingOrder(m, pl.ops, {});
  EXPECT_EQ(j.calls, 16u);
  EXPECT_EQ(j.withoutPeer, 16u);
  EXPECT_EQ(j.pairs, 8u);
  EXPECT_EQ(j.together, 8u);
  EXPECT_EQ(j.confidence, "high");
}

// A call no op explains (the last stage sends before it ran anything) keeps no peer, is left
// unpaired and counted as such; the confidence falls with it.
TEST(PostingOrder, WhatNoOpExplainsIsLeftWithoutPeer) {
  const Pipeline pl = [] {
    Stage s0, s1, s2;
    s0.op(OpKind::F, 0, 0);
    s0.call(NcclOp::Send, 1'000'000, 1'010'000, 1'100'000);
    s1.call(NcclOp::Send, 100'000, 110'000, 150'000);  // before it ran anything
    s1.call(NcclOp::Recv, 500'000, 510'000, 1'100'000);
    s1.op(OpKind::F, 0, 1'150'000);
    s1.call(NcclOp::Send, 2'100'000, 2'110'000, 2'200'000);
    s2.call(NcclOp::Recv, 2'000'000, 2'010'000, 2'200'000);
    s2.op(OpKind::F, 0, 2'250'000);
    return Pipeline({std::move(s0), std::move(s1), std::move(s2)});
  }();
  const PostingOrderPeers peers = peersByPostingOrder(pl.run, pl.ops, pl.places);
  EXPECT_EQ(peers.peerOf[1], (std::vector<int32_t>{-1, 0, 2}));
  const CommMatches m = matchComms(pl.run, pl.ops, &peers.peerOf);
  EXPECT_EQ(m.p2p.size(), 2u);
  EXPECT_EQ(m.p2pWithoutPeer, 1);
  const PostingOrderJudgement j = judgePostingOrder(m, pl.ops, {});
  EXPECT_EQ(j.calls, 4u);
  EXPECT_EQ(j.withoutPeer, 5u);
  EXPECT_EQ(j.confidence, "medium");
}

// Where each neighbour's messages run on a stream of their own, a receive comes from the one its
// stream serves, however early it was posted.
// Stage 1 talks to stage 0 on stream 5 and to stage 2 on stream 7. It posts the receive of BW 0's
// input from stage 2 before F 1, whose input would come from stage 0.
Pipeline streamPerNeighbour() {
  Stage s0, s1, s2;
  s0.op(OpKind::F, 0, 0);
  s0.call(NcclOp::Send, 1'000'000, 1'010'000, 1'100'000);
  s0.call(NcclOp::Recv, 4'900'000, 5'010'000, 5'100'000);
  s1.call(NcclOp::Recv, 500'000, 510'000, 1'100'000, 5);
  s1.op(OpKind::F, 0, 1'150'000);
  s1.call(NcclOp::Send, 2'100'000, 2'110'000, 2'200'000, 7);
  s1.call(NcclOp::Recv, 2'150'000, 2'160'000, 4'000'000, 7);
  s1.op(OpKind::F, 1, 2'200'000);
  s1.op(OpKind::BW, 0, 4'100'000);
  s1.call(NcclOp::Send, 5'000'000, 5'010'000, 5'100'000, 5);
  s2.call(NcclOp::Recv, 2'000'000, 2'010'000, 2'200'000);
  s2.op(OpKind::F, 0, 2'250'000);
  s2.op(OpKind::BW, 0, 3'000'000);
  s2.call(NcclOp::Send, 3'900'000, 3'910'000, 4'000'000);
  return Pipeline({std::move(s0), std::move(s1), std::move(s2)});
}

TEST(PostingOrder, AReceivesStreamNamesItsSender) {
  Pipeline pl = streamPerNeighbour();
  const PostingOrderPeers peers = peersByPostingOrder(pl.run, pl.ops, pl.places);
  EXPECT_EQ(peers.peerOf[1], (std::vector<int32_t>{0, 2, 2, 0}));
  const CommMatches m = matchComms(pl.run, pl.ops, &peers.peerOf);
  EXPECT_EQ(m.p2p.size(), 4u);
  EXPECT_EQ(m.p2pWithoutPeer, 0);
  const PostingOrderJudgement j = judgePostingOrder(m, pl.ops, {});
  EXPECT_EQ(j.pairs, 4u);
  EXPECT_EQ(j.together, 4u);
  EXPECT_EQ(j.confidence, "high");
}

// What `analyze` under MPI keeps of each rank for the rest of the analysis (keepForAnalysis) still
// holds the kernels whose streams name the sender.
TEST(PostingOrder, TheStreamsStillNameTheSenderOnceRanksAreKeptForAnalysis) {
  Pipeline pl = streamPerNeighbour();
  for (traces::RankTrace& t : pl.run.ranks) keepForAnalysis(t);
  EXPECT_GT(pl.run.ranks[1].kernels->size(), 0u);
  EXPECT_EQ(peersByPostingOrder(pl.run, pl.ops, pl.places).peerOf[1],
            (std::vector<int32_t>{0, 2, 2, 0}));
}

// Pairs whose kernels never ran at the same time (a link paired a message off) lower the
// confidence, on the clocks the caller aligned.
TEST(PostingOrder, PairsThatDidNotRunTogetherLowerTheConfidence) {
  const Pipeline pl = [] {
    Stage s0, s1;
    s0.op(OpKind::F, 0, 0);
    s0.call(NcclOp::Send, 1'000'000, 1'010'000, 1'100'000);
    s1.call(NcclOp::Recv, 500'000, 510'000, 1'100'000);
    s1.op(OpKind::F, 0, 1'150'000);
    return Pipeline({std::move(s0), std::move(s1)});
  }();
  const PostingOrderPeers peers = peersByPostingOrder(pl.run, pl.ops, pl.places);
  const CommMatches m = matchComms(pl.run, pl.ops, &peers.peerOf);
  EXPECT_EQ(judgePostingOrder(m, pl.ops, {0, 0}).confidence, "high");
  // Stage 1's clock read 2 ms late: its receive's kernel ran long after the send's.
  const PostingOrderJudgement j = judgePostingOrder(m, pl.ops, {0, 2'000'000});
  EXPECT_EQ(j.together, 0u);
  EXPECT_EQ(j.confidence, "low");
}

// A V (ZB-V, p = 3): stage 1's chunk 1 (virtual stage 4) takes its input from stage 2 and sends
// its output back up to stage 0; the last stage hands chunk 0 to chunk 1 itself, with no call.
TEST(PostingOrder, AVsChunkOneSendsBackUp) {
  const Pipeline pl = [] {
    ThreeStages j;
    j.s[0].op(OpKind::F, 0, 0, 0);
    j.s[0].op(OpKind::F, 0, 4'000'000, 1);
    j.s[1].op(OpKind::F, 0, 1'000'000, 0);
    j.s[1].op(OpKind::F, 0, 3'000'000, 1);
    j.s[2].op(OpKind::F, 0, 1'960'000, 0);
    j.s[2].op(OpKind::F, 0, 2'200'000, 1);
    j.message(0, 1, 900'000, 500'000, 1'000'000);
    j.message(1, 2, 1'900'000, 1'500'000, 1'950'000);
    j.message(2, 1, 2'400'000, 2'500'000, 2'900'000);
    j.message(1, 0, 3'900'000, 3'000'000, 4'000'000);
    return Pipeline({std::move(j.s[0]), std::move(j.s[1]), std::move(j.s[2])},
                    engine::ChunkLayout::V, 2);
  }();
  const PostingOrderPeers peers = peersByPostingOrder(pl.run, pl.ops, pl.places);
  EXPECT_EQ(peers.peerOf[1], (std::vector<int32_t>{0, 2, 2, 0}));
  const CommMatches m = matchComms(pl.run, pl.ops, &peers.peerOf);
  EXPECT_EQ(m.p2p.size(), 4u);
  EXPECT_EQ(judgePostingOrder(m, pl.ops, {}).confidence, "high");
}

// Calls that name their peer are left to their payload; nothing to do without such calls.
TEST(PostingOrder, CallsThatNameTheirPeerAreLeftAlone) {
  Pipeline pl = threeStages();
  for (auto& t : pl.run.ranks) {
    for (auto& p : t.ncclCalls->peer) p = 0;
  }
  const PostingOrderPeers peers = peersByPostingOrder(pl.run, pl.ops, pl.places);
  EXPECT_EQ(peers.withoutPeer, 0u);
  EXPECT_EQ(peers.given, 0u);
}

}  // namespace
}  // namespace bubblescope::analysis
