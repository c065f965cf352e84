// One pipeline ready for analysis: sends matched to receives (one match per step, pass,
// microbatch, sender and receiver, in time order), peers the labels leave out taken from the chunk
// layout, the layout itself (looped or V), and the steps every stage has.
#include "analyzer/pipeline/pipeline_trace.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include "analyzer/result/errors.h"
#include "tests/analyzer/hand_pipeline.h"

namespace bubblescope::analysis {
namespace {

using testing::HandPipeline;
using testing::kMs;

constexpr Op F0{OpKind::F, 0, 0};

// (from, to, send index, receive index), sorted.
using Pair = std::tuple<int, int, size_t, size_t>;
std::vector<Pair> pairs(const PipelineTrace& pl) {
  std::vector<Pair> out;
  for (const Transfer& t : transfersOf(pl))
    out.emplace_back(t.fromStage, t.toStage, t.send, t.recv);
  std::sort(out.begin(), out.end());
  return out;
}

// A transfer is held as its send's place among the pipeline's comms: each side is found again
// wherever its stage is, next to the other or not, past stages that hold no comm, and a comm
// left unmatched has no other side.
TEST(LinkTransfers, EachSideIsFoundAgainWhereverItsStageIs) {
  PipelineTrace pl;
  pl.p = 5;
  pl.stages.resize(5);
  const size_t commsOf[] = {2, 0, 1, 0, 4};  // stages 1 and 3 hold none
  for (int s = 0; s < 5; ++s) {
    pl.stages[s].stage = s;
    pl.stages[s].ops.comms.resize(commsOf[s]);
  }
  const std::vector<Transfer> given = {{0, 4, 1, 2}, {4, 0, 0, 0}, {2, 4, 0, 1}};
  linkTransfers(pl, given);
  EXPECT_EQ(pl.commBase, (std::vector<uint32_t>{0, 2, 2, 3, 3, 7}));
  ASSERT_EQ(pl.transferCount(), 3u);
  for (size_t i = 0; i < given.size(); ++i) {
    const Transfer t = pl.transfer(i);
    EXPECT_EQ(std::tie(t.fromStage, t.toStage, t.send, t.recv),
              std::tie(given[i].fromStage, given[i].toStage, given[i].send, given[i].recv))
        << "transfer " << i;
    const std::optional<CommAt> recv = pl.peerOf(t.fromStage, t.send);
    ASSERT_TRUE(recv.has_value());
    EXPECT_EQ(recv->stage, t.toStage);
    EXPECT_EQ(recv->comm, t.recv);
    const std::optional<CommAt> send = pl.peerOf(t.toStage, t.recv);
    ASSERT_TRUE(send.has_value());
    EXPECT_EQ(send->stage, t.fromStage);
    EXPECT_EQ(send->comm, t.send);
  }
  for (int near = -1; near < 5; ++near) {
    EXPECT_EQ(pl.commAt(2, near).stage, 2) << "near " << near;  // the first after empty stage 1
    EXPECT_EQ(pl.commAt(5, near).stage, 4) << "near " << near;
    EXPECT_EQ(pl.commAt(5, near).comm, 2u) << "near " << near;
  }
  EXPECT_FALSE(pl.peerOf(4, 3).has_value());  // unmatched
  EXPECT_FALSE(PipelineTrace{}.peerOf(0, 0).has_value()) << "never linked";
}

TEST(MatchTransfers, EachSendMeetsTheReceiveOfItsPassMicrobatchAndStagePair) {
  // 2 stages, 2 microbatches: activations down, gradients back.
  HandPipeline h(2);
  h.op(0, F0, 0, 1);
  h.send(0, OpKind::F, 0, 1, 10, 11).send(0, OpKind::F, 1, 1, 20, 21);  // comms 0, 1
  h.recv(0, OpKind::B, 0, 1, 30, 41).recv(0, OpKind::B, 1, 1, 50, 61);  // comms 2, 3
  h.recv(1, OpKind::F, 0, 0, 5, 11).recv(1, OpKind::F, 1, 0, 15, 21);   // comms 0, 1
  h.send(1, OpKind::B, 0, 0, 40, 41).send(1, OpKind::B, 1, 0, 60, 61);  // comms 2, 3
  h.op(1, F0, 12, 13);
  const PipelineTrace pl = h.build();
  EXPECT_EQ(pairs(pl), (std::vector<Pair>{{0, 1, 0, 0}, {0, 1, 1, 1}, {1, 0, 2, 2}, {1, 0, 3, 3}}));
}

TEST(MatchTransfers, SendsOfOneKeyPairWithReceivesInTimeOrder) {
  // Interleaved, 2 stages: F mb=0 goes 0 -> 1 twice (chunk 0, then chunk 1); chunks are not part
  // of the key, so the first send meets the first receive and the second the second.
  HandPipeline h(2);
  h.op(0, F0, 0, 1);
  h.send(0, OpKind::F, 0, 1, 10, 11, 0).send(0, OpKind::F, 0, 1, 30, 31, 1);
  h.recv(1, OpKind::F, 0, 0, 5, 12, 0).recv(1, OpKind::F, 0, 0, 25, 32, 1);
  h.op(1, F0, 12, 13);
  const PipelineTrace pl = h.build();
  EXPECT_EQ(pairs(pl), (std::vector<Pair>{{0, 1, 0, 0}, {0, 1, 1, 1}}));
}

TEST(MatchTransfers, SendWithoutAReceiveStaysUnmatched) {
  HandPipeline h(2);
  h.op(0, F0, 0, 1);
  h.send(0, OpKind::F, 0, 1, 10, 11).send(0, OpKind::F, 0, 1, 20, 21);
  h.send(0, OpKind::F, 1, 1, 30, 31);  // nobody receives mb=1
  h.recv(1, OpKind::F, 0, 0, 5, 12);
  h.recv(1, OpKind::B, 0, 0, 5, 12);  // gradients from stage 0: nobody sends them
  h.op(1, F0, 12, 13);
  const PipelineTrace pl = h.build();
  EXPECT_EQ(pairs(pl), (std::vector<Pair>{{0, 1, 0, 0}}));
}

TEST(MatchTransfers, StepsMatchByNumberNotByIndex) {
  // Stage 0 recorded steps 5 and 6, stage 1 only step 6: stage 0's step-6 send (its comm 1)
  // meets stage 1's receive (its comm 0); the step-5 send has no partner.
  HandPipeline h(2);
  h.stageStep(0, 5, 0, 99).stageStep(0, 6, 100, 199).stageStep(1, 6, 100, 199);
  h.op(0, F0, 0, 10).send(0, OpKind::F, 0, 1, 10, 12);
  h.op(0, F0, 100, 110).send(0, OpKind::F, 0, 1, 110, 112);
  h.recv(1, OpKind::F, 0, 0, 105, 112).op(1, F0, 112, 120);
  const PipelineTrace pl = h.build();
  EXPECT_EQ(pairs(pl), (std::vector<Pair>{{0, 1, 1, 0}}));
  EXPECT_EQ(pl.stepNumbers, (std::vector<int64_t>{6}));
  EXPECT_EQ(pl.stepIndex, (std::vector<std::vector<int>>{{1}, {0}}));
  EXPECT_THAT(pl.warnings,
              ::testing::ElementsAre("1 step(s) not present on every stage were left out"));
}

// Matching takes each step's comms in turn when each stage's steps rise along its comms, and
// keys and sorts every comm at once when they do not (step numbers from a label, out of time
// order): the pairs are the same either way, with numbers close together or far apart (issue 28),
// within a step in whatever order its comms came, and for a comm past the last step.
TEST(MatchTransfers, StepsNumberedApartOrOutOfOrderPairAsNumbersCloseTogetherDo) {
  // The k-th step in time is numbered first + stride * k.
  auto build = [](int64_t first, int64_t stride) {
    HandPipeline h(2);
    for (int k = 0; k < 3; ++k) {
      const TimeNs at = 100 * k;
      const int64_t number = first + stride * k;
      h.stageStep(0, number, at, at + 90).stageStep(1, number, at, at + 90);
      h.op(0, F0, at, at + 10);
      // Gradients of mb 1 come back before those of mb 0, and mb 1 goes down first.
      h.send(0, OpKind::F, 1, 1, at + 10, at + 12).send(0, OpKind::F, 0, 1, at + 12, at + 14);
      h.recv(0, OpKind::B, 1, 1, at + 40, at + 42).recv(0, OpKind::B, 0, 1, at + 50, at + 52);
      h.recv(1, OpKind::F, 0, 0, at + 5, at + 14).recv(1, OpKind::F, 1, 0, at + 6, at + 12);
      h.op(1, F0, at + 14, at + 20);
      h.send(1, OpKind::B, 1, 0, at + 40, at + 42).send(1, OpKind::B, 0, 0, at + 50, at + 52);
    }
    // A step still open: past the last step's range on both stages.
    h.send(0, OpKind::F, 0, 1, 400, 402).recv(1, OpKind::F, 0, 0, 400, 402);
    return pairs(h.build());
  };
  const std::vector<Pair> close = build(0, 1), apart = build(0, 1'000'000'000'000),
                          falling = build(10, -2);
  std::vector<Pair> want;
  for (size_t k = 0; k < 3; ++k) {
    const size_t c = 4 * k;
    // Stage 0's comms of a step: F mb1, F mb0, B mb1, B mb0; stage 1's: F mb0, F mb1, B mb1, B mb0.
    want.insert(want.end(),
                {{0, 1, c, c + 1}, {0, 1, c + 1, c}, {1, 0, c + 2, c + 2}, {1, 0, c + 3, c + 3}});
  }
  want.push_back({0, 1, 12, 12});
  std::sort(want.begin(), want.end());
  EXPECT_EQ(close, want);
  EXPECT_EQ(apart, want);
  EXPECT_EQ(falling, want);
}

TEST(BuildPipeline, TransfersWithoutPeersTakeThemFromTheChunkLayout) {
  // Megatron's labels name no stage: activations go to the next stage, gradients to the previous.
  HandPipeline h(3);
  for (int s = 0; s < 3; ++s) h.op(s, F0, 10 * s, 10 * s + 5);
  h.send(0, OpKind::F, 0, -1, 5, 6).recv(1, OpKind::F, 0, -1, 0, 6);
  h.send(1, OpKind::F, 0, -1, 15, 16).recv(2, OpKind::F, 0, -1, 0, 16);
  h.send(2, OpKind::B, 0, -1, 30, 31).recv(1, OpKind::B, 0, -1, 20, 31);
  h.recv(0, OpKind::F, 0, -1, 0, 1);  // the first stage has no one before it
  const PipelineTrace pl = h.build();
  // Each is matched to the side its inferred peer names (the label's peer, once matched, is where
  // that side is: PipelineTrace::peerOf).
  const auto peerStage = [&](int stage, size_t comm) {
    const std::optional<CommAt> peer = pl.peerOf(stage, comm);
    return peer ? peer->stage : -1;
  };
  EXPECT_EQ(peerStage(0, 1), 1);   // its send
  EXPECT_EQ(peerStage(0, 0), -1);  // its receive of activations
  EXPECT_EQ(peerStage(1, 0), 0);   // receive F
  EXPECT_EQ(peerStage(1, 1), 2);   // send F
  EXPECT_EQ(peerStage(1, 2), 2);   // receive B
  EXPECT_EQ(peerStage(2, 1), 1);   // send B
  EXPECT_EQ(pl.transferCount(), 3u);
}

struct LayoutCase {
  const char* what;
  int sender, peer;  // a send of chunk 1's activations
  bool v;
};

TEST(BuildPipeline, ChunkOnesActivationsSentBackTowardsStageZeroMeanAVLayout) {
  const LayoutCase cases[] = {
      {"ZB-V: the last stage sends chunk 1 back to stage 0", 1, 0, true},
      {"interleaved: stage 0 sends chunk 1 on to stage 1", 0, 1, false},
  };
  for (const auto& c : cases) {
    HandPipeline h(2);
    h.op(0, {OpKind::F, 0, 1}, 0, 1).op(1, {OpKind::F, 0, 1}, 0, 1);
    h.send(c.sender, OpKind::F, 0, c.peer, 1, 2, 1);
    const PipelineTrace pl = h.build();
    EXPECT_EQ(pl.v, 2) << c.what;
    EXPECT_EQ(pl.vLayout, c.v) << c.what;
  }
}

TEST(BuildPipeline, KeepsTheStepsInTheRequestedRangeThatEveryStageHas) {
  HandPipeline h(2);
  for (int k = 0; k < 4; ++k) {
    h.step(10 + k, 100 * k, 100 * k + 99);
    h.op(0, F0, 100 * k, 100 * k + 5).op(1, F0, 100 * k + 5, 100 * k + 10);
  }
  PipelineOptions options = HandPipeline::noClockAlignment();
  options.firstStep = 11;
  options.lastStep = 12;
  const PipelineTrace pl = h.build(options);
  EXPECT_EQ(pl.stepNumbers, (std::vector<int64_t>{11, 12}));
  EXPECT_EQ(pl.stepIndex, (std::vector<std::vector<int>>{{1, 2}, {1, 2}}));
  EXPECT_TRUE(pl.warnings.empty());
}

TEST(BuildPipeline, EachStageTakesItsRepresentativesOps) {
  // Stage 0 is a TP group of ranks 2 and 0 (rank 2 the busier); stage 1 is rank 1.
  std::vector<RankOps> ops(3);
  for (size_t r = 0; r < 3; ++r) {
    ops[r].steps = {{0, 0, 100}};
    ops[r].ops.push_back({.op = F0, .step = 0, .start = 0, .end = TimeNs(r + 1)});
  }
  Topology topo;
  topo.pp = 2;
  topo.dp = 1;
  topo.tp = 2;
  topo.dpRanks = {3};
  topo.ranksOf = {{{2, 0}, {1}}};
  const PipelineTrace pl = buildPipeline(topo, 0, ops, HandPipeline::noClockAlignment());
  EXPECT_EQ(pl.dpRank, 3);
  EXPECT_EQ(pl.p, 2);
  EXPECT_EQ(pl.stages[0].ranks, (std::vector<size_t>{2, 0}));
  EXPECT_EQ(pl.stages[0].ops.ops.at(0).end, 3);  // rank 2's
  EXPECT_EQ(pl.stages[1].ops.ops.at(0).end, 2);  // rank 1's
  EXPECT_EQ(pl.stepNumbers, (std::vector<int64_t>{0}));
}

// A stage's chunks are its virtual stages and what its comms name: ops naming a chunk past what a
// comm can hold (a label's id, up to INT32_MAX) are refused in one sentence, never a schedule of
// that many rows; the last chunk that fits is taken.
TEST(BuildPipeline, OpsNamingAChunkBeyondWhatACommHoldsAreRefused) {
  for (const int chunk : {kCommChunks - 1, kCommChunks, INT32_MAX}) {
    std::vector<RankOps> ops(2);
    for (size_t r = 0; r < 2; ++r) {
      ops[r].steps = {{0, 0, 100}};
      ops[r].ops.push_back({.op = F0, .step = 0, .start = 0, .end = 10});
    }
    ops[1].ops.push_back({.op = Op{OpKind::F, 0, chunk}, .step = 0, .start = 10, .end = 20});
    Topology topo;
    topo.pp = 2;
    topo.dp = 1;
    topo.tp = 1;
    topo.dpRanks = {0};
    topo.ranksOf = {{{0}, {1}}};
    if (chunk < kCommChunks) {
      EXPECT_EQ(buildPipeline(topo, 0, ops, HandPipeline::noClockAlignment()).v, kCommChunks);
      continue;
    }
    try {
      buildPipeline(topo, 0, ops, HandPipeline::noClockAlignment());
      ADD_FAILURE() << "chunk " << chunk << " taken";
    } catch (const AnalysisInputError& e) {
      EXPECT_EQ(std::string(e.what()), "pipeline 0: the ops of stage 1 (rank 1) name model chunk " +
                                           std::to_string(chunk) +
                                           "; at most 256 chunks a stage are supported");
    }
  }
}

}  // namespace
}  // namespace bubblescope::analysis
