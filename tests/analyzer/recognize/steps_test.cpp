// Step cutting: ops and transfers fall in the step marker holding their start (the host launch
// for ops); without markers a step starts at each forward of microbatch 0, chunk 0. Rule sets
// without microbatch ids number ops by their order in each step.
#include "analyzer/recognize/steps.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <random>
#include <vector>

namespace bubblescope::analysis {
namespace {

// An op and its host range (RankOps::opHosts).
struct HostedOp {
  RecognizedOp op;
  HostSpan host;
};

HostedOp op(Op o, TimeNs start, TimeNs end, TimeNs launch = -1) {
  RecognizedOp r;
  r.op = o;
  r.start = start;
  r.end = end;
  const TimeNs at = launch < 0 ? start : launch;
  return {r, {at, at}};  // a host range no longer than its launch: its start decides
}

void add(RankOps& r, const HostedOp& o) {
  r.ops.push_back(o.op);
  r.opHosts.push_back(o.host);
}

void put(RankOps& r, std::initializer_list<HostedOp> ops) {
  r.ops.clear();
  r.opHosts.clear();
  for (const HostedOp& o : ops) add(r, o);
}

RecognizedComm comm(bool send, OpKind pass, TimeNs start, TimeNs end, int mb = 0, int chunk = 0) {
  return RecognizedComm{.send = send,
                        .pass = pass,
                        .chunk = static_cast<uint8_t>(chunk),
                        .thread = 0,
                        .mb = mb,
                        .peer = -1,
                        .step = -1,
                        .start = start,
                        .end = end};
}

constexpr Op F0{OpKind::F, 0, 0}, F1{OpKind::F, 1, 0}, BW0{OpKind::BW, 0, 0}, BW1{OpKind::BW, 1, 0};

std::vector<int> stepsOfOps(const RankOps& r) {
  std::vector<int> out;
  for (const auto& o : r.ops) out.push_back(o.step);
  return out;
}

// The markers are found by walking on from the last answer (issue 28): times in order, times
// that jump ahead many markers, go back, fall in gaps between markers or outside them all get
// the marker holding them, as a search of every marker would. Seeded.
TEST(CutSteps, TransfersInAnyOrderFallInTheMarkerHoldingTheirLaunch) {
  std::mt19937 rng(28);
  for (int trial = 0; trial < 50; ++trial) {
    RankOps r;
    TimeNs at = static_cast<TimeNs>(rng() % 50);
    const int markers = 1 + static_cast<int>(rng() % 200);
    for (int i = 0; i < markers; ++i) {
      const TimeNs length = static_cast<TimeNs>(rng() % 30);
      r.steps.push_back({i, at, at + length});
      at += length + 1 + static_cast<TimeNs>(rng() % 3 == 0 ? rng() % 20 : 0);  // some gaps
    }
    const std::vector<StepMarker> steps = r.steps;
    for (int i = 0; i < 400; ++i) {
      TimeNs t = static_cast<TimeNs>(rng() % static_cast<uint32_t>(at + 100)) - 50;
      // Mostly in order: a walk forward from the last, now and then a jump either way.
      if (!r.comms.empty() && rng() % 4 != 0) t = r.commLaunches.back() + rng() % 7;
      // Posted at t, its kernel running a while after (into the next marker, at times).
      const TimeNs queued = static_cast<TimeNs>(rng() % 40);
      r.comms.push_back(comm(true, OpKind::F, t + queued, t + queued + 1));
      r.commLaunches.push_back(t);
    }
    cutSteps(r);
    for (size_t i = 0; i < r.comms.size(); ++i) {
      const TimeNs launch = r.launchOf(i);
      int holding = -1;
      for (size_t k = 0; k < steps.size(); ++k) {
        if (steps[k].start <= launch && launch <= steps[k].end) holding = static_cast<int>(k);
      }
      ASSERT_EQ(r.comms[i].step, holding) << "trial " << trial << ", launch " << launch;
    }
  }
}

TEST(CutSteps, OpsAndTransfersFallInTheMarkerHoldingTheirStart) {
  RankOps r;
  r.steps = {{2, 100, 199}, {1, 0, 99}};  // out of order: sorted first
  put(r, {
             op(F0, -10, -5),       // before every step
             op(F0, 10, 20),        //
             op(F1, 101, 110, 95),  // launched in step 1 though its kernels ran in step 2
             op(BW0, 99, 105),      // launched on the last ns of step 1: markers are closed
             op(BW1, 150, 160),     //
             op(F0, 250, 260),      // after every step
         });
  r.comms = {comm(true, OpKind::F, 20, 30), comm(false, OpKind::B, 140, 150),
             comm(true, OpKind::F, 200, 210)};
  cutSteps(r);
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.steps[0].number, 1);
  EXPECT_EQ(r.steps[1].number, 2);
  EXPECT_EQ(stepsOfOps(r), (std::vector<int>{-1, 0, 0, 0, 1, -1}));
  EXPECT_EQ(r.comms[0].step, 0);
  EXPECT_EQ(r.comms[1].step, 1);
  EXPECT_EQ(r.comms[2].step, -1);
}

TEST(CutSteps, AnOpWhoseRangeBeganJustBeforeItsStepRangeBelongsToThatStep) {
  // torch's profiler.step() can open ProfilerStep#N a few µs into the step's first op annotation.
  RankOps r;
  r.steps = {{1, 0, 99}, {2, 100, 199}};
  HostedOp first = op(F0, 102, 130, 97);
  first.host.end = 120;  // its host range ends inside step 2
  HostedOp last = op(BW0, 90, 98, 90);
  last.host.end = 98;  // the last op of step 1 stays there
  put(r, {last, first});
  cutSteps(r);
  EXPECT_EQ(stepsOfOps(r), (std::vector<int>{0, 1}));
}

TEST(CutSteps, DeviceWorkBelongsToTheStepThatLaunchedIt) {
  // The optimizer's kernels run after its range, and the next step's range, began.
  RankOps r;
  r.steps = {{1, 0, 99}, {2, 100, 199}};
  r.otherKernels = {{101, 108, 95}, {120, 125, kNoLaunch}};
  CommKernel nccl;
  nccl.start = 102;
  nccl.end = 110;
  nccl.launch = 96;
  r.commKernels = {nccl};
  cutSteps(r);
  EXPECT_EQ(r.otherKernels[0].step, 0);
  EXPECT_EQ(r.otherKernels[1].step, 1);  // no launch known: its own time decides
  EXPECT_EQ(r.commKernels[0].step, 0);
}

TEST(CutSteps, WithoutMarkersAStepStartsAtEachForwardOfMicrobatchZero) {
  RankOps r;
  for (TimeNs t0 : {0, 100}) {
    add(r, op(F0, t0 + 10, t0 + 20));
    add(r, op(F1, t0 + 20, t0 + 30));
    add(r, op({OpKind::F, 0, 1}, t0 + 30, t0 + 40));  // chunk 1: not a new step
    add(r, op(BW0, t0 + 40, t0 + 60));
    add(r, op(BW1, t0 + 60, t0 + 80));
  }
  r.comms = {comm(false, OpKind::F, 5, 10)};  // the first forward's input: part of step 0
  r.optimizer = {{180, 195}};
  cutSteps(r);
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.steps[0].number, 0);
  EXPECT_EQ(r.steps[0].start, 5);
  EXPECT_EQ(r.steps[0].end, 109);
  EXPECT_EQ(r.steps[1].number, 1);
  EXPECT_EQ(r.steps[1].start, 110);
  EXPECT_EQ(r.steps[1].end, 195);  // the last step ends with the optimizer
  EXPECT_EQ(stepsOfOps(r), (std::vector<int>{0, 0, 0, 0, 0, 1, 1, 1, 1, 1}));
  EXPECT_EQ(r.comms[0].step, 0);
}

TEST(CutSteps, WithoutAnyForwardOfMicrobatchZeroOneStepStartsAtTheFirstOp) {
  RankOps r;
  put(r, {op(BW1, 10, 20), op(BW0, 30, 40)});
  cutSteps(r);
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.steps[0].start, 10);
  EXPECT_EQ(r.steps[0].end, 40);
  EXPECT_EQ(stepsOfOps(r), (std::vector<int>{0, 0}));
}

// Megatron's timer names and DeepSpeed's instructions carry no microbatch id (they are numbered
// after the cut), so no forward of microbatch 0 shows where an iteration starts: the optimizer
// step that ends each one does.
TEST(CutSteps, WithoutMarkersOrMicrobatchIdsAStepStartsAfterEachOptimizerStep) {
  RankOps r;
  const Op f{OpKind::F, -1, 0}, bw{OpKind::BW, -1, 0};
  for (TimeNs t0 : {0, 100, 200}) {
    add(r, op(f, t0 + 10, t0 + 20));
    add(r, op(f, t0 + 20, t0 + 30));
    add(r, op(bw, t0 + 30, t0 + 50));
    add(r, op(bw, t0 + 50, t0 + 70));
    r.optimizer.push_back({t0 + 80, t0 + 90});
  }
  cutSteps(r);
  ASSERT_EQ(r.steps.size(), 3u);
  EXPECT_EQ(r.steps[0].start, 10);
  EXPECT_EQ(r.steps[0].end, 109);
  EXPECT_EQ(r.steps[1].start, 110);
  EXPECT_EQ(r.steps[1].end, 209);
  EXPECT_EQ(r.steps[2].start, 210);
  EXPECT_EQ(r.steps[2].end, 290);  // the last optimizer step
  EXPECT_EQ(stepsOfOps(r), (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2}));
}

// A stage after the first waits for its first input of each step in a receive that starts before
// the op: the receive, and the wait in it, are the new step's.
TEST(CutSteps, WithoutMarkersTheReceiveOfAStepsFirstInputBelongsToThatStep) {
  for (int mb : {0, -1}) {  // microbatch ids from the labels, or numbered later
    SCOPED_TRACE("mb " + std::to_string(mb));
    const Op f{OpKind::F, mb, 0}, bw{OpKind::BW, mb, 0};
    RankOps r;
    for (TimeNs t0 : {0, 100}) {
      r.comms.push_back(comm(false, OpKind::F, t0 + 0, t0 + 12, mb));
      add(r, op(f, t0 + 12, t0 + 20));
      r.comms.push_back(comm(true, OpKind::F, t0 + 20, t0 + 22, mb));
      r.comms.push_back(comm(false, OpKind::B, t0 + 22, t0 + 30, mb));
      add(r, op(bw, t0 + 30, t0 + 40));
      r.optimizer.push_back({t0 + 50, t0 + 60});
    }
    cutSteps(r);
    ASSERT_EQ(r.steps.size(), 2u);
    EXPECT_EQ(r.steps[0].start, 0);
    EXPECT_EQ(r.steps[0].end, 99);
    EXPECT_EQ(r.steps[1].start, 100);
    EXPECT_EQ(r.steps[1].end, 160);
    std::vector<int> commSteps;
    for (const auto& c : r.comms) commSteps.push_back(c.step);
    EXPECT_EQ(commSteps, (std::vector<int>{0, 0, 0, 1, 1, 1}));
  }
}

TEST(CutSteps, NothingToCutGivesNoSteps) {
  RankOps r;
  cutSteps(r);
  EXPECT_TRUE(r.steps.empty());
}

TEST(NumberMicrobatchesByOrder, CountsPerStepKindAndChunk) {
  RankOps r;
  const Op f{OpKind::F, -1, 0}, f1{OpKind::F, -1, 1}, bw{OpKind::BW, -1, 0};
  put(r, {op(f, 0, 1), op(f1, 1, 2), op(f, 2, 3), op(bw, 3, 4), op(f1, 4, 5), op(bw, 5, 6),
          op(f, 10, 11), op(bw, 11, 12)});
  for (size_t i = 0; i < r.ops.size(); ++i) r.ops[i].step = i < 6 ? 0 : 1;
  add(r, op({OpKind::F, 9, 0}, 12, 13));  // read from its label: kept
  r.ops.back().step = 1;
  r.comms = {comm(true, OpKind::F, 0, 1, -1), comm(false, OpKind::B, 1, 2, -1),
             comm(true, OpKind::F, 2, 3, -1), comm(true, OpKind::B, 3, 4, -1),
             comm(true, OpKind::F, 10, 11, -1)};
  for (size_t i = 0; i < r.comms.size(); ++i) r.comms[i].step = i < 4 ? 0 : 1;
  numberMicrobatchesByOrder(r);
  std::vector<int> mbs;
  for (const auto& o : r.ops) mbs.push_back(o.op.mb);
  EXPECT_EQ(mbs, (std::vector<int>{0, 0, 1, 0, 1, 1, 0, 0, 9}));
  std::vector<int> commMbs;
  for (const auto& c : r.comms) commMbs.push_back(c.mb);
  // Sends and receives, and each pass, count apart.
  EXPECT_EQ(commMbs, (std::vector<int>{0, 0, 1, 0, 0}));
}

}  // namespace
}  // namespace bubblescope::analysis
