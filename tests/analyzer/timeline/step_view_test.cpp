// One step, stage by stage: its span over every stage, each stage's ops in order, and where each
// op's cross-stage input came from (the matched receive, else the producer op) and when it
// arrived. The idle classes and the blame walk stand on these.
#include "analyzer/timeline/step_view.h"

#include <gtest/gtest.h>

#include "tests/analyzer/hand_pipeline.h"

namespace bubblescope::analysis {
namespace {

using testing::HandPipeline;
using testing::kMs;

constexpr Op F0{OpKind::F, 0, 0}, BW0{OpKind::BW, 0, 0};

// Two stages, one microbatch: activations go 0 -> 1 in 1 ms, gradients 1 -> 0 in 1 ms, each
// receiver waiting in its receive; stage 0 runs the optimizer last.
HandPipeline twoStagesOneMicrobatch() {
  HandPipeline h(2);
  h.op(0, F0, 0, 2 * kMs).send(0, OpKind::F, 0, 1, 2 * kMs, 3 * kMs);
  h.recv(0, OpKind::B, 0, 1, 2 * kMs, 10 * kMs).op(0, BW0, 10 * kMs, 14 * kMs);
  h.optimizer(0, 14 * kMs, 15 * kMs);
  h.recv(1, OpKind::F, 0, 0, 0, 3 * kMs).op(1, F0, 3 * kMs, 5 * kMs);
  h.op(1, BW0, 5 * kMs, 9 * kMs).send(1, OpKind::B, 0, 0, 9 * kMs, 10 * kMs);
  return h;
}

TEST(StepView, SpanRunsFromTheEarliestOpToTheLatestEndOptimizerIncluded) {
  const PipelineTrace pl = twoStagesOneMicrobatch().build();
  const auto views = buildStepViews(pl);
  ASSERT_EQ(views.size(), 1u);
  EXPECT_EQ(views[0].index, 0);
  EXPECT_EQ(views[0].number, 0);
  EXPECT_EQ(views[0].start, 0);
  EXPECT_EQ(views[0].end, 15 * kMs);
  ASSERT_EQ(views[0].stages.size(), 2u);
  EXPECT_EQ(views[0].stages[0].ops, (std::vector<int>{0, 1}));
  EXPECT_EQ(views[0].stages[1].ops, (std::vector<int>{0, 1}));
}

TEST(StepView, SpanOpensWithTheHostWorkDoneBeforeAStagesFirstOp) {
  // Stage 0 loads data for 20 ms before its first forward, inside the step's range: the step
  // starts with it. Host work after a stage's first launch (stage 1 logging) or still running
  // when it launched does not move the start.
  HandPipeline h = twoStagesOneMicrobatch();
  h.step(0, -25 * kMs, 20 * kMs);
  h.host(0, -20 * kMs, -1 * kMs, "dataloader");
  h.host(1, 6 * kMs, 7 * kMs, "logging");
  const auto views = buildStepViews(h.build());
  ASSERT_EQ(views.size(), 1u);
  EXPECT_EQ(views[0].start, -20 * kMs);
  EXPECT_EQ(views[0].end, 15 * kMs);

  HandPipeline overlapping = twoStagesOneMicrobatch();
  overlapping.step(0, -25 * kMs, 20 * kMs);
  overlapping.host(0, -2 * kMs, 1 * kMs, "dataloader");  // still busy when F0 was launched
  EXPECT_EQ(buildStepViews(overlapping.build())[0].start, 0);
}

TEST(StepView, InputArrivesAtTheEndOfItsMatchedReceiveAndNamesItsProducer) {
  const PipelineTrace pl = twoStagesOneMicrobatch().build();
  const StepView view = buildStepViews(pl).at(0);
  const StageStep& s0 = view.stages[0];
  const StageStep& s1 = view.stages[1];
  // F mb=0 on stage 1: activations of F mb=0 on stage 0 (op 0 there), received 0..3 ms.
  EXPECT_EQ(s1.input[0].arrival, 3 * kMs);
  EXPECT_EQ(s1.input[0].waitStart, 0);
  EXPECT_EQ(s1.input[0].producerStage, 0);
  EXPECT_EQ(s1.input[0].producerOp, 0);
  // BW mb=0 on stage 0: gradients of BW mb=0 on stage 1 (op 1 there), received 2..10 ms.
  EXPECT_EQ(s0.input[1].arrival, 10 * kMs);
  EXPECT_EQ(s0.input[1].waitStart, 2 * kMs);
  EXPECT_EQ(s0.input[1].producerStage, 1);
  EXPECT_EQ(s0.input[1].producerOp, 1);
}

// Stage 1 posts F1's receive only once F0 is done (batched with F0's send, as torch does). Its
// data then waits for that post, unless the send was already over when the receive began: NCCL
// buffered it, and it could have moved any time after F1 on stage 0.
HandPipeline receivePostedAfterF0(TimeNs sendF1End) {
  constexpr Op F1{OpKind::F, 1, 0};
  HandPipeline h(2);
  h.op(0, F0, 0, 2 * kMs).send(0, OpKind::F, 0, 1, 2 * kMs, 2 * kMs + kMs / 5, 0, true);
  h.op(0, F1, 2 * kMs, 4 * kMs).send(0, OpKind::F, 1, 1, 4 * kMs, sendF1End, 0, true);
  h.recv(1, OpKind::F, 0, 0, 2 * kMs, 2 * kMs + kMs / 5, 0, true).op(1, F0, 3 * kMs, 5 * kMs);
  h.recv(1, OpKind::F, 1, 0, 5 * kMs, 6 * kMs, 0, true).op(1, F1, 6 * kMs, 8 * kMs);
  return h;
}

TEST(StepView, AReceivePostedAfterThePreviousOpHoldsItsDataUnlessTheSendWasBuffered) {
  // Rendezvous: the send waited for the receive, both ending together.
  const PipelineTrace met = receivePostedAfterF0(6 * kMs).build();
  EXPECT_TRUE(buildStepViews(met).at(0).posting.receiveAfterPrevious[1][1]);
  // Buffered: the send was over (at 4.2 ms) before the receive began (5 ms).
  const PipelineTrace buffered = receivePostedAfterF0(4 * kMs + kMs / 5).build();
  EXPECT_FALSE(buildStepViews(buffered).at(0).posting.receiveAfterPrevious[1][1]);
}

// An op-level timeline (NDTimeline: no kernels, no launches) whose pair's two records begin
// together: stage 0 sends F0's output at `sendAt`, and stage 1's receive begins with it.
HandPipeline opLevelPairAt(TimeNs sendAt) {
  constexpr Op F1{OpKind::F, 1, 0};
  HandPipeline h(2);
  h.op(0, F0, 0, 2 * kMs).op(0, F1, 2 * kMs, 4 * kMs);
  h.send(0, OpKind::F, 0, 1, sendAt, sendAt + kMs / 10);
  h.recv(1, OpKind::F, 0, 0, sendAt, sendAt + kMs / 10).op(1, F0, sendAt + kMs / 5, 7 * kMs);
  return h;
}

TEST(StepView, AnOpLevelPairThatBeganTogetherShowsItsRendezvousAndASendPostedWithALaterOp) {
  // Begun as stage 0's F1 ended: Megatron's interleaved 1F1B sends F0's output in the batched
  // send/receive after the next op. The data moved at 4 ms, after F1 (position 1 on stage 0).
  const StepView withView = buildStepViews(opLevelPairAt(4 * kMs).build()).at(0);
  const StageStep& with = withView.stages[1];
  EXPECT_EQ(withView.posting.sentAfter[1][0], 1);
  EXPECT_EQ(with.input[0].moved, 4 * kMs);
  // The records' start is the transfer's, not when either side was posted.
  EXPECT_EQ(with.posted[0], kNoLaunch);
  EXPECT_EQ(with.sendPosted[0], kNoLaunch);
  // Begun mid-way through F1, at no op's end: a late host, not the schedule's posting.
  const StepView lateView = buildStepViews(opLevelPairAt(3 * kMs).build()).at(0);
  const StageStep& late = lateView.stages[1];
  EXPECT_EQ(lateView.posting.sentAfter[1][0], -1);
  EXPECT_EQ(late.input[0].moved, 3 * kMs);
}

TEST(StepView, AnOpLevelPairBegunAsTheReceiversOpEndedWasPostedWithThatOp) {
  // Stage 1 was busy in F0 until 5 ms, when the pair for F1 began: its receive, posted with F0's
  // p2p, began it, although stage 0's BW0 ended then too; the send is not said to be late.
  constexpr Op F1{OpKind::F, 1, 0};
  HandPipeline h(2);
  h.op(0, F0, 0, 2 * kMs).op(0, F1, 2 * kMs, 4 * kMs).op(0, BW0, 4 * kMs, 5 * kMs);
  h.send(0, OpKind::F, 1, 1, 5 * kMs, 5 * kMs + kMs / 10);
  h.op(1, F0, 2 * kMs, 5 * kMs);
  h.recv(1, OpKind::F, 1, 0, 5 * kMs, 5 * kMs + kMs / 10).op(1, F1, 5 * kMs + kMs / 5, 7 * kMs);
  const StepView view = buildStepViews(h.build()).at(0);
  EXPECT_TRUE(view.posting.receiveAfterPrevious[1][1]);
  EXPECT_EQ(view.posting.sentAfter[1][1], -1);
}

// Stage 1 sends BW0's gradients at 9 ms in a record that ends at `sendEnds`; stage 0 receives
// them after its F1, at [11.9, 12) ms, and sends F1's output then; stage 1's F1 starts at 12 ms.
HandPipeline gradientSentAt9EndingAt(TimeNs sendEnds) {
  constexpr Op F1{OpKind::F, 1, 0};
  HandPipeline h(2);
  h.op(0, F0, 0, 2 * kMs).send(0, OpKind::F, 0, 1, 2 * kMs, 2 * kMs + kMs / 10);
  h.op(0, F1, 2 * kMs + kMs / 10, 11 * kMs + 9 * kMs / 10);
  h.send(0, OpKind::F, 1, 1, 11 * kMs + 9 * kMs / 10, 12 * kMs);
  h.recv(0, OpKind::B, 0, 1, 11 * kMs + 9 * kMs / 10, 12 * kMs);
  h.recv(1, OpKind::F, 0, 0, 2 * kMs, 2 * kMs + kMs / 10).op(1, F0, 3 * kMs, 5 * kMs);
  h.op(1, BW0, 5 * kMs, 9 * kMs).send(1, OpKind::B, 0, 0, 9 * kMs, sendEnds);
  h.recv(1, OpKind::F, 1, 0, 11 * kMs + 9 * kMs / 10, 12 * kMs).op(1, F1, 12 * kMs, 14 * kMs);
  return h;
}

// The ops that op `pos` of `stage` awaits (StepView::posting: flat over the step's ops, stage by
// stage), as (stage, position).
std::vector<engine::Await> awaitsOf(const StepView& view, int stage, int pos) {
  size_t i = static_cast<size_t>(pos);
  for (int s = 0; s < stage; ++s) i += view.stages[s].ops.size();
  const engine::Posting& p = view.posting;
  if (p.awaitBegin.empty()) return {};
  return {p.awaits.begin() + p.awaitBegin[i], p.awaits.begin() + p.awaitBegin[i + 1]};
}

TEST(StepView, AnOpLevelBatchBeforeAnOpAwaitsTheOpAfterWhichItsOtherSidePosted) {
  // Stage 1 sends BW0's gradients in a blocking batch [9, 12) that ends when stage 0 posts its
  // receive, after its F1 (ended 11.9 ms); stage 1's F1 then starts at 12 ms: it waited for that.
  const HandPipeline h = gradientSentAt9EndingAt(12 * kMs);
  const StepView view = buildStepViews(h.build()).at(0);
  ASSERT_EQ(view.stages[1].ops.size(), 3u);
  // One entry an op of the step, and one past the last.
  ASSERT_EQ(view.posting.awaitBegin.size(), view.opCount() + 1);
  // F1 (position 2) awaits stage 0's F1 (position 1 there), through the send; its own receive
  // awaits the same op. F0 and BW0 await nothing, nor does stage 0.
  EXPECT_TRUE(awaitsOf(view, 1, 0).empty());
  EXPECT_TRUE(awaitsOf(view, 1, 1).empty());
  EXPECT_EQ(awaitsOf(view, 1, 2), (std::vector<engine::Await>{{0, 1}, {0, 1}}));
  for (int pos = 0; pos < 2; ++pos) EXPECT_TRUE(awaitsOf(view, 0, pos).empty());
}

TEST(StepView, ASendThatReturnedBeforeItsDataArrivedHeldNoOpBack) {
  // As above, but the send posted and returned in 5 µs (an isend, a buffering channel: the
  // reference engine's): the stage went on; only F1's own receive holds it.
  const StepView async = buildStepViews(gradientSentAt9EndingAt(9 * kMs + 5'000).build()).at(0);
  EXPECT_EQ(awaitsOf(async, 1, 2), (std::vector<engine::Await>{{0, 1}}));
}

TEST(StepView, FirstForwardAndLastStagesBackwardHaveNoCrossStageInput) {
  const PipelineTrace pl = twoStagesOneMicrobatch().build();
  const StepView view = buildStepViews(pl).at(0);
  for (auto [stage, pos] : {std::pair{0, 0}, std::pair{1, 1}}) {
    const StageStep& ss = view.stages[stage];
    EXPECT_EQ(ss.input[pos].arrival, kNoArrival) << "stage " << stage;
    EXPECT_EQ(ss.input[pos].waitStart, kNoArrival) << "stage " << stage;
    EXPECT_EQ(ss.input[pos].producerStage, -1) << "stage " << stage;
    EXPECT_EQ(ss.input[pos].producerOp, -1) << "stage " << stage;
  }
}

TEST(StepView, WithoutAReceiveTheInputArrivesWhenItsProducerEnds) {
  HandPipeline h(2);
  h.op(0, F0, 0, 2 * kMs).op(0, BW0, 9 * kMs, 13 * kMs);
  h.op(1, F0, 3 * kMs, 5 * kMs).op(1, BW0, 5 * kMs, 8 * kMs);
  const PipelineTrace pl = h.build();
  const auto views = buildStepViews(pl);
  const StepView& view = views.at(0);
  EXPECT_EQ(view.stages[1].input[0].arrival, 2 * kMs);
  EXPECT_EQ(view.stages[1].input[0].waitStart, kNoArrival);
  EXPECT_EQ(view.stages[1].input[0].producerOp, 0);
  EXPECT_EQ(view.stages[0].input[1].arrival, 8 * kMs);
  EXPECT_EQ(view.stages[0].input[1].producerStage, 1);
  EXPECT_EQ(view.stages[0].input[1].producerOp, 1);
  // No receive waited, so no transfer shows its lag.
  EXPECT_TRUE(transferLags(pl, views).empty());
}

TEST(StepView, ComputeIsTheOpsRangesAndTheOptimizerIsOtherBusy) {
  HandPipeline h = twoStagesOneMicrobatch();
  h.host(1, 9 * kMs, 11 * kMs).host(1, 10 * kMs, 12 * kMs);
  const PipelineTrace pl = h.build();
  const StepView view = buildStepViews(pl).at(0);
  // Stage 0 computes in [0, 2) and [10, 14) ms and runs its optimizer in [14, 15); its send moves
  // data in [2, 3) and its receive in [9, 10), once their other sides began.
  // Busy [0, 3) and [9, 15): idle [3, 9) before BW0.
  EXPECT_EQ(view.stages[0].idleBefore, (std::vector<TimeNs>{0, 6 * kMs, 0}));
  EXPECT_EQ(view.stages[0].compute, 6 * kMs);
  EXPECT_EQ(view.stages[0].exposedComm, 2 * kMs);
  EXPECT_EQ(view.stages[0].otherBusy, 1 * kMs);
  // Busy [2, 10): idle [0, 2) before F0 and [10, 15) in the drain.
  EXPECT_EQ(view.stages[1].idleBefore, (std::vector<TimeNs>{2 * kMs, 0, 5 * kMs}));
  EXPECT_EQ(view.stages[1].compute, 6 * kMs);
  EXPECT_EQ(view.stages[1].exposedComm, 2 * kMs);
  EXPECT_EQ(view.stages[1].otherBusy, 0);
  EXPECT_EQ(view.stages[1].hostActivity, (IntervalList{{9 * kMs, 12 * kMs}}));
}

// Each part counts only where the parts before it do not cover it: communication under compute
// is not exposed, other work under either is not other busy; what their union leaves is idle.
TEST(StepView, EachBusyPartCountsOnlyWhereThePartsBeforeDoNotCoverIt) {
  HandPipeline h(2);
  h.op(0, F0, 0, 4 * kMs).send(0, OpKind::F, 0, 1, 3 * kMs, 6 * kMs);
  h.optimizer(0, 5 * kMs, 8 * kMs);
  h.recv(1, OpKind::F, 0, 0, 0, 6 * kMs).op(1, F0, 6 * kMs, 9 * kMs);
  h.op(1, BW0, 8 * kMs, 12 * kMs);
  const StepView view = buildStepViews(h.build()).at(0);
  const StageStep& first = view.stages[0];
  EXPECT_EQ(first.idleBefore, (std::vector<TimeNs>{0, 4 * kMs}));  // busy [0, 8), the step 12 ms
  EXPECT_EQ(first.compute, 4 * kMs);
  EXPECT_EQ(first.exposedComm, 2 * kMs);  // [4, 6): the send's first ms ran under F0
  EXPECT_EQ(first.otherBusy, 2 * kMs);    // [6, 8): the optimizer's first ms under the send
  const StageStep& second = view.stages[1];
  // The receive waited until 3 ms (its send began then), then moved data until F0 began.
  EXPECT_EQ(second.idleBefore, (std::vector<TimeNs>{3 * kMs, 0, 0}));  // busy [3, 12)
  EXPECT_EQ(second.compute, 6 * kMs);  // F0 and BW0 overlap by 1 ms: counted once
  EXPECT_EQ(second.exposedComm, 3 * kMs);
  EXPECT_EQ(second.otherBusy, 0);
}

// Whichever op first has one (the first, a middle one, the last), every time put reads back, and
// every other as unknown; a column that never had one reads unknown throughout.
TEST(RareTimes, ReadsBackEveryTimePutWhereverTheFirstKnownOneIs) {
  for (size_t first = 0; first < 4; ++first) {
    RareTimes<kNoLaunch> column;
    column.reserve(4);
    for (size_t j = 0; j < 4; ++j)
      column.push_back(j >= first && j % 2 == first % 2 ? 10 + j : kNoLaunch);
    ASSERT_EQ(column.size(), 4u);
    for (size_t j = 0; j < 4; ++j) {
      const TimeNs want =
          j >= first && j % 2 == first % 2 ? static_cast<TimeNs>(10 + j) : kNoLaunch;
      EXPECT_EQ(column[j], want) << "first known " << first << ", op " << j;
    }
    column.clear();
    column.push_back(kNoLaunch);
    column.push_back(kNoLaunch);
    EXPECT_EQ(column.size(), 2u);
    EXPECT_EQ(column[0], kNoLaunch);
    EXPECT_EQ(column[1], kNoLaunch);
  }
}

TEST(TransferLags, LagIsArrivalMinusProducerEndWhereTheReceiverWasWaiting) {
  const PipelineTrace pl = twoStagesOneMicrobatch().build();
  const auto lags = transferLags(pl, buildStepViews(pl));
  EXPECT_EQ(lags, (std::vector<TimeNs>{1 * kMs, 1 * kMs}));
}

TEST(HealthyTransfer, IsTheLowerMedianOfTheLinksMediansSoHalfTheLinksSlowDoNotOwnIt) {
  // Two of four links carry a 4 ms delay: the median of all transfers would be a delayed one.
  const LinkLags lags{{{0, 1}, {100, 100, 120}},
                      {{1, 0}, {110, 90}},
                      {{1, 2}, {4100, 4000, 4200, 4100}},
                      {{2, 1}, {4100, 4050, 4150, 4100}}};
  EXPECT_EQ(healthyTransfer(lags), 110);
  EXPECT_EQ(healthyTransfer({{{0, 1}, {300}}}), 300) << "one link: its own median";
  EXPECT_EQ(healthyTransfer({}), 0);
}

TEST(TransferLags, ByLinkAreTheLagsOfEachLinkAlone) {
  const PipelineTrace pl = twoStagesOneMicrobatch().build();
  const LinkLags byLink = transferLagsByLink(pl, buildStepViews(pl));
  EXPECT_EQ(byLink.size(), 2u);
  EXPECT_EQ(byLink.at({0, 1}), (std::vector<TimeNs>{1 * kMs}));
  EXPECT_EQ(byLink.at({1, 0}), (std::vector<TimeNs>{1 * kMs}));
}

TEST(TransferLags, ReceivePostedAfterItsProducerEndedShowsNoLag) {
  // The receive starts at 2.5 ms, after F mb=0 ended at 2 ms: its end says nothing of the lag.
  HandPipeline h(2);
  h.op(0, F0, 0, 2 * kMs).send(0, OpKind::F, 0, 1, 2 * kMs, 3 * kMs);
  h.recv(1, OpKind::F, 0, 0, 2 * kMs + kMs / 2, 3 * kMs).op(1, F0, 3 * kMs, 5 * kMs);
  const PipelineTrace pl = h.build();
  const auto views = buildStepViews(pl);
  EXPECT_EQ(views.at(0).stages[1].input[0].arrival, 3 * kMs);
  EXPECT_TRUE(transferLags(pl, views).empty());
}

TEST(StepView, EachStepHoldsItsOwnOpsAndTakesInputsFromTheSameStep) {
  HandPipeline h(2);
  h.step(7, 0, 20 * kMs).step(8, 21 * kMs, 40 * kMs);
  for (TimeNs t0 : {TimeNs{0}, 21 * kMs}) {
    h.op(0, F0, t0, t0 + 2 * kMs).op(0, BW0, t0 + 9 * kMs, t0 + 13 * kMs);
    h.op(1, F0, t0 + 3 * kMs, t0 + 5 * kMs).op(1, BW0, t0 + 5 * kMs, t0 + 8 * kMs);
  }
  const PipelineTrace pl = h.build();
  const auto views = buildStepViews(pl);
  ASSERT_EQ(views.size(), 2u);
  EXPECT_EQ(views[1].index, 1);
  EXPECT_EQ(views[1].number, 8);
  EXPECT_EQ(views[1].start, 21 * kMs);
  EXPECT_EQ(views[1].end, 34 * kMs);
  EXPECT_EQ(views[1].stages[1].ops, (std::vector<int>{2, 3}));
  EXPECT_EQ(views[1].stages[1].input[0].producerOp,
            2);  // F mb=0 of step 8 on stage 0, not step 7's
  EXPECT_EQ(views[1].stages[1].input[0].arrival, 23 * kMs);
  EXPECT_EQ(views[0].stages[1].input[0].producerOp, 0);
  EXPECT_EQ(views[0].stages[1].input[0].arrival, 2 * kMs);
}

// One microbatch through 4 virtual stages on 2 stages. Looped (interleaved): chunk c of stage s is
// virtual stage 2c + s. V (ZB-V): stage 0 holds virtual stages 0 and 3, stage 1 holds 1 and 2.
struct ChunkCase {
  const char* layout;
  std::vector<std::pair<int, int>> forwardOrder;  // (stage, chunk) of virtual stages 0..3
};

TEST(StepView, ProducerFollowsTheChunkLayout) {
  const ChunkCase cases[] = {
      {"looped", {{0, 0}, {1, 0}, {0, 1}, {1, 1}}},
      {"V", {{0, 0}, {1, 0}, {1, 1}, {0, 1}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.layout);
    HandPipeline h(2);
    // F through virtual stages 0..3 at [vs, vs+1] ms, then B back through 3..0 at [4+k, 5+k].
    for (int vs = 0; vs < 4; ++vs) {
      auto [stage, chunk] = c.forwardOrder[vs];
      h.op(stage, {OpKind::F, 0, chunk}, vs * kMs, (vs + 1) * kMs);
      h.op(stage, {OpKind::B, 0, chunk}, (7 - vs) * kMs, (8 - vs) * kMs);
    }
    const PipelineTrace pl = h.build();
    EXPECT_EQ(pl.v, 2);
    EXPECT_EQ(pl.vLayout, std::string(c.layout) == "V");
    const StepView view = buildStepViews(pl).at(0);
    for (int vs = 1; vs < 4; ++vs) {
      // F on virtual stage vs takes its input from F on vs - 1, which ended at vs ms.
      auto [stage, chunk] = c.forwardOrder[vs];
      auto [pStage, pChunk] = c.forwardOrder[vs - 1];
      const StageStep& ss = view.stages[stage];
      for (size_t pos = 0; pos < ss.ops.size(); ++pos) {
        const Op& op = pl.stages[stage].ops.ops[ss.ops[pos]].op;
        if (op.kind != OpKind::F || op.chunk != chunk) continue;
        EXPECT_EQ(ss.input[pos].arrival, vs * kMs) << "virtual stage " << vs;
        ASSERT_EQ(ss.input[pos].producerStage, pStage) << "virtual stage " << vs;
        const Op& producer = pl.stages[pStage].ops.ops[ss.input[pos].producerOp].op;
        EXPECT_EQ(producer, (Op{OpKind::F, 0, pChunk})) << "virtual stage " << vs;
      }
    }
    for (int vs = 0; vs < 3; ++vs) {
      // B on virtual stage vs takes its gradients from B on vs + 1, which ended at 8 - (vs+1) ms.
      auto [stage, chunk] = c.forwardOrder[vs];
      auto [pStage, pChunk] = c.forwardOrder[vs + 1];
      const StageStep& ss = view.stages[stage];
      for (size_t pos = 0; pos < ss.ops.size(); ++pos) {
        const Op& op = pl.stages[stage].ops.ops[ss.ops[pos]].op;
        if (op.kind != OpKind::B || op.chunk != chunk) continue;
        EXPECT_EQ(ss.input[pos].arrival, (7 - vs) * kMs) << "virtual stage " << vs;
        ASSERT_EQ(ss.input[pos].producerStage, pStage) << "virtual stage " << vs;
        const Op& producer = pl.stages[pStage].ops.ops[ss.input[pos].producerOp].op;
        EXPECT_EQ(producer, (Op{OpKind::B, 0, pChunk})) << "virtual stage " << vs;
      }
    }
  }
}

// A step's ops by index into the stage's: their positions in the step, none outside the stretch
// or in a hole of it, and nothing of the step before once assigned again.
TEST(StepPositions, GiveEachOpsPlaceInTheStepAndNoneForOthers) {
  StepPositions p;
  p.assign({12, 10, 15, 11});
  EXPECT_EQ(p.at(12), 0);
  EXPECT_EQ(p.at(10), 1);
  EXPECT_EQ(p.at(15), 2);
  EXPECT_EQ(p.at(11), 3);
  for (int other : {-1, 9, 13, 14, 16, 1 << 30}) EXPECT_EQ(p.at(other), -1) << other;
  p.assign({3});
  EXPECT_EQ(p.at(3), 0);
  EXPECT_EQ(p.at(12), -1);
  p.clear();
  EXPECT_EQ(p.at(3), -1);
}

}  // namespace
}  // namespace bubblescope::analysis
