// Recognition of one rank: the rule set recognising the most ops is chosen, and its ranges become
// ops, transfers, steps and phases; unrecognised ranges that hold no work of their thread are
// host activity; torch's stage ids become chunks; counted rule sets number microbatches by order.
#include "analyzer/recognize/recognizer.h"

#include <gtest/gtest.h>

#include "analyzer/result/errors.h"
#include "tests/analyzer/recognize/hand_trace.h"

namespace bubblescope::analysis {
namespace {

using testing::HandTrace;

std::vector<const RuleSet*> builtins() {
  std::vector<const RuleSet*> sets;
  for (const RuleSet& s : builtinRuleSets()) sets.push_back(&s);
  return sets;
}

const RuleSet& builtin(const std::string& name) {
  for (const RuleSet& s : builtinRuleSets()) {
    if (s.name == name) return s;
  }
  throw std::logic_error("no built-in rule set " + name);
}

TEST(Recognize, BubblescopeRangesBecomeOpsTransfersStepsAndPhases) {
  HandTrace h;
  h.range(0, 0, 100, "step 4");
  h.range(0, 10, 20, "F mb=0 ch=1");
  h.range(1, 20, 25, "SEND F mb=0 ch=1 to=1");
  h.range(0, 21, 40, "RECV B mb=0 ch=1 from=1");
  h.range(0, 40, 60, "BW mb=0 ch=1");
  h.range(0, 60, 70, "grad_sync");
  h.range(0, 70, 80, "optimizer");
  h.range(0, 80, 85, "loss");
  const RankOps r = recognize(h.trace(), builtins());
  EXPECT_EQ(r.ruleSet, "bubblescope");
  EXPECT_FALSE(r.mbInferred);
  EXPECT_FALSE(r.hasKernels);
  ASSERT_EQ(r.ops.size(), 2u);
  EXPECT_EQ(r.ops[0].op, (Op{OpKind::F, 0, 1}));
  EXPECT_EQ(r.ops[0].start, 10);
  EXPECT_EQ(r.ops[0].end, 20);
  // An op-level trace's host range is each op's span: none kept apart.
  EXPECT_TRUE(r.opHosts.empty());
  EXPECT_EQ(r.hostOf(0), (HostSpan{10, 20}));
  EXPECT_EQ(r.ops[0].step, 0);
  EXPECT_EQ(r.ops[1].op, (Op{OpKind::BW, 0, 1}));
  ASSERT_EQ(r.comms.size(), 2u);
  const RecognizedComm& send = r.comms[0];
  EXPECT_TRUE(send.send);
  EXPECT_EQ(send.pass, OpKind::F);
  EXPECT_EQ(send.mb, 0);
  EXPECT_EQ(send.chunk, 1);
  EXPECT_EQ(send.peer, 1);
  EXPECT_EQ(send.start, 20);
  EXPECT_EQ(send.end, 25);
  EXPECT_EQ(send.thread, 1u);
  EXPECT_EQ(send.step, 0);
  EXPECT_FALSE(r.comms[1].send);
  EXPECT_EQ(r.comms[1].pass, OpKind::B);
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.steps[0].number, 4);
  EXPECT_EQ(r.steps[0].start, 0);
  EXPECT_EQ(r.steps[0].end, 100);
  EXPECT_EQ(r.gradSync, (std::vector<Interval>{{60, 70}}));
  EXPECT_EQ(r.optimizer, (std::vector<Interval>{{70, 80}}));
  EXPECT_EQ(r.otherBusy, (std::vector<Interval>{{80, 85}}));
  EXPECT_TRUE(r.hostActivity.empty());  // the step marker wraps work of its thread
}

TEST(Recognize, UnrecognisedRangesHoldingNoWorkOfTheirThreadAreHostActivity) {
  HandTrace h;
  h.range(0, 0, 8, "dataloader");    // before the thread's first op: host work
  h.range(0, 5, 100, "train_step");  // wraps the thread's ops: not host work
  h.range(0, 10, 20, "F mb=0");
  h.range(1, 12, 18, "pin_memory");        // on another thread than the op: host work
  h.range(1, 30, 35, "ncclSend", "NCCL");  // NCCL's own annotation: communication
  h.range(0, 40, 60, "BW mb=0");
  const RankOps r = recognize(h.trace(), builtins());
  EXPECT_EQ(r.hostActivity, (std::vector<Interval>{{0, 8}, {12, 18}}));
}

// c10d's ranges around an NCCL call, as an nsys export of a torch job keeps them (emit_nvtx's
// suffix already cut by the importer): they post communication, not host work. A receive posted at
// a step's start was taken for host work that opened the step (1.4 ms a step on an nsys export).
TEST(Recognize, CommunicationWrappersAreNotHostActivity) {
  HandTrace h;
  h.range(0, 0, 4, "c10d::recv_");
  h.range(0, 1, 4, "record_param_comms");
  h.range(0, 2, 3, "nccl:recv 1<-0");
  h.range(0, 5, 8, "dataloader");
  h.range(0, 10, 20, "F mb=0");
  h.range(0, 21, 25, "nccl:all_reduce");
  h.range(0, 30, 34, "record_param_comms_of_mine");  // not c10d's: the user's own range
  h.range(0, 40, 60, "BW mb=0");
  const RankOps r = recognize(h.trace(), builtins());
  EXPECT_EQ(r.hostActivity, (std::vector<Interval>{{5, 8}, {30, 34}}));
}

TEST(Recognize, RuleSetRecognisingTheMostOpsWins) {
  HandTrace h;
  h.range(0, 0, 10, "F mb=0");
  h.range(0, 10, 20, "PP:0F1");
  h.range(0, 20, 30, "PP:0B1");
  const RankOps r = recognize(h.trace(), builtins());
  EXPECT_EQ(r.ruleSet, "torch.distributed.pipelining");
  ASSERT_EQ(r.ops.size(), 2u);
  EXPECT_EQ(r.ops[1].op, (Op{OpKind::BW, 1, 0}));
  EXPECT_EQ(r.hostActivity, (std::vector<Interval>{{0, 10}}));  // the other set's label
}

TEST(Recognize, OnATieTheRuleSetTriedFirstWins) {
  HandTrace h;
  h.range(0, 0, 10, "F mb=0");
  h.range(0, 10, 20, "forward-compute");
  const RuleSet& bubblescope = builtin("bubblescope");
  const RuleSet& megatron = builtin("megatron");
  EXPECT_EQ(recognize(h.trace(), {&bubblescope, &megatron}).ruleSet, "bubblescope");
  EXPECT_EQ(recognize(h.trace(), {&megatron, &bubblescope}).ruleSet, "megatron");
}

TEST(Recognize, TraceNoRuleSetRecognisesGivesNoOps) {
  HandTrace h;
  h.range(0, 0, 10, "forward");
  h.range(0, 10, 20, "step 1");  // a marker alone is not an op
  const RankOps r = recognize(h.trace(), builtins());
  EXPECT_EQ(r.ruleSet, "");
  EXPECT_TRUE(r.ops.empty());
  EXPECT_TRUE(r.steps.empty());
}

TEST(Recognize, TorchStageIdsBecomeChunksAndTheLowestIsTheStage) {
  // Stage ids 1 and 3 on one rank: virtual stages of a looped layout, chunks 0 and 1.
  HandTrace h;
  h.range(0, 0, 10, "PP:1F0");
  h.range(0, 10, 12, "PP:1SEND_F0");
  h.range(0, 20, 30, "PP:3F0");
  h.range(0, 30, 32, "PP:3SEND_F0");
  const RankOps r = recognize(h.trace(), builtins());
  EXPECT_EQ(r.stageFromLabels, 1);
  ASSERT_EQ(r.ops.size(), 2u);
  EXPECT_EQ(r.ops[0].op.chunk, 0);
  EXPECT_EQ(r.ops[1].op.chunk, 1);
  ASSERT_EQ(r.comms.size(), 2u);
  EXPECT_EQ(r.comms[0].chunk, 0);
  EXPECT_EQ(r.comms[1].chunk, 1);
  EXPECT_EQ(r.comms[1].peer, -1);  // torch labels name no peer
}

TEST(Recognize, CountedRuleSetsNumberMicrobatchesInOrderWithinEachStep) {
  HandTrace h;
  for (TimeNs t0 : {0, 100}) {
    h.range(0, t0, t0 + 99, "ProfilerStep#" + std::to_string(t0 / 100 + 7));
    h.range(0, t0 + 10, t0 + 20, "forward-compute");
    h.range(0, t0 + 20, t0 + 22, "forward-send");
    h.range(0, t0 + 30, t0 + 40, "forward-compute");
    h.range(0, t0 + 40, t0 + 42, "forward-send");
    h.range(0, t0 + 50, t0 + 60, "backward-compute");
    h.range(0, t0 + 60, t0 + 70, "backward-compute");
  }
  const RankOps r = recognize(h.trace(), builtins());
  EXPECT_EQ(r.ruleSet, "megatron");
  EXPECT_TRUE(r.mbInferred);
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.steps[0].number, 7);
  EXPECT_EQ(r.steps[1].number, 8);
  std::vector<std::pair<int, Op>> ops;
  for (const auto& o : r.ops) ops.emplace_back(o.step, o.op);
  const Op f0{OpKind::F, 0, 0}, f1{OpKind::F, 1, 0}, b0{OpKind::BW, 0, 0}, b1{OpKind::BW, 1, 0};
  EXPECT_EQ(ops, (std::vector<std::pair<int, Op>>{
                     {0, f0}, {0, f1}, {0, b0}, {0, b1}, {1, f0}, {1, f1}, {1, b0}, {1, b1}}));
  std::vector<int> sendMbs;
  for (const auto& c : r.comms) sendMbs.push_back(c.mb);
  EXPECT_EQ(sendMbs, (std::vector<int>{0, 1, 0, 1}));
}

TEST(Recognize, CountedRuleSetsWithoutStepMarkersCutStepsAfterEachOptimizerStep) {
  HandTrace h;
  for (TimeNs t0 : {0, 100}) {
    h.range(0, t0 + 10, t0 + 20, "ForwardPass");
    h.range(0, t0 + 20, t0 + 30, "ForwardPass");
    h.range(0, t0 + 30, t0 + 50, "BackwardPass");
    h.range(0, t0 + 50, t0 + 70, "BackwardPass");
    h.range(0, t0 + 80, t0 + 90, "OptimizerStep");
  }
  const RankOps r = recognize(h.trace(), builtins());
  EXPECT_EQ(r.ruleSet, "deepspeed");
  ASSERT_EQ(r.steps.size(), 2u);
  std::vector<std::pair<int, Op>> ops;
  for (const auto& o : r.ops) ops.emplace_back(o.step, o.op);
  const Op f0{OpKind::F, 0, 0}, f1{OpKind::F, 1, 0}, b0{OpKind::BW, 0, 0}, b1{OpKind::BW, 1, 0};
  EXPECT_EQ(ops, (std::vector<std::pair<int, Op>>{
                     {0, f0}, {0, f1}, {0, b0}, {0, b1}, {1, f0}, {1, f1}, {1, b0}, {1, b1}}));
}

TEST(Recognize, WithoutStepMarkersStepsAreCutWhereMicrobatchZeroStartsAgain) {
  HandTrace h;
  for (TimeNs t0 : {0, 100}) {
    h.range(0, t0 + 10, t0 + 20, "F mb=0");
    h.range(0, t0 + 20, t0 + 30, "F mb=1");
    h.range(0, t0 + 30, t0 + 50, "BW mb=0");
    h.range(0, t0 + 50, t0 + 70, "BW mb=1");
  }
  const RankOps r = recognize(h.trace(), builtins());
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.steps[0].start, 10);
  EXPECT_EQ(r.steps[0].end, 109);
  EXPECT_EQ(r.steps[1].start, 110);
  EXPECT_EQ(r.steps[1].end, 170);
  EXPECT_EQ(r.ops[3].step, 0);
  EXPECT_EQ(r.ops[4].step, 1);
}

TEST(Recognize, KernelsLaunchedInsideAnOpBecomeItsExecution) {
  HandTrace h;
  h.range(0, 10, 20, "F mb=0");
  h.kernel(0, 12, 1, 30, 45);
  const RankOps r = recognize(h.trace(), builtins());
  EXPECT_TRUE(r.hasKernels);
  ASSERT_EQ(r.ops.size(), 1u);
  EXPECT_EQ(r.ops[0].start, 30);
  EXPECT_EQ(r.ops[0].end, 45);
  EXPECT_EQ(r.hostOf(0).launch, 10);  // the host side stays the range
}

// A comm keeps a chunk below kCommChunks and a thread below kCommThreads (recognized.h): a trace
// that needs more (an op's chunk included) is refused in one sentence naming its file and rank,
// at the first chunk or thread past them, and the last that fit are taken as they are.
TEST(Recognize, AChunkOrCommThreadBeyondWhatACommHoldsIsRefusedNamingTheFileAndRank) {
  const auto refusal = [](HandTrace& h) -> std::string {
    h.t.file = "run/rank-00003.sqlite";
    h.t.meta.rank = 3;
    try {
      recognize(h.trace(), builtins());
    } catch (const AnalysisInputError& e) {
      return e.what();
    }
    return "";
  };
  HandTrace fits;
  fits.range(0, 10, 20, "F mb=0 ch=255");
  fits.range(kCommThreads - 1, 20, 25, "SEND F mb=0 ch=255 to=1");
  const RankOps r = recognize(fits.trace(), builtins());
  ASSERT_EQ(r.comms.size(), 1u);
  EXPECT_EQ(r.comms[0].chunk, 255);
  EXPECT_EQ(r.comms[0].thread, kCommThreads - 1);

  HandTrace chunk;
  chunk.range(0, 10, 20, "F mb=0 ch=0");
  chunk.range(1, 20, 25, "SEND F mb=0 ch=256 to=1");
  EXPECT_EQ(refusal(chunk),
            "run/rank-00003.sqlite: rank 3 labels a send or receive with model chunk 256; at most "
            "256 chunks a stage are supported");
  // An op's chunk is held to the same bound: its comms name it.
  HandTrace opChunk;
  opChunk.range(0, 10, 20, "F mb=0 ch=256");
  EXPECT_EQ(refusal(opChunk),
            "run/rank-00003.sqlite: rank 3 labels an op with model chunk 256; at most 256 chunks a "
            "stage are supported");
  HandTrace thread;
  thread.range(0, 10, 20, "F mb=0");
  thread.range(static_cast<traces::ThreadIndex>(kCommThreads), 20, 25, "RECV F mb=0 from=1");
  EXPECT_EQ(refusal(thread),
            "run/rank-00003.sqlite: rank 3 sends and receives on more than 65536 threads; at most "
            "that many are supported");
}

}  // namespace
}  // namespace bubblescope::analysis
