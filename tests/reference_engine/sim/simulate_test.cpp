// The simulator's mechanics: dependency timing worked out by hand, transfer only across stages,
// per-stage and per-op costs, chunk splitting, the ZB paper's memory accounting, and clear errors
// for orders that cannot run.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "reference_engine/schedule/schedule.h"
#include "reference_engine/sim/simulate.h"

namespace bubblescope::engine {
namespace {

constexpr Op F(int mb, int chunk = 0) {
  return {OpKind::F, mb, chunk};
}
constexpr Op BW(int mb, int chunk = 0) {
  return {OpKind::BW, mb, chunk};
}
constexpr Op B(int mb, int chunk = 0) {
  return {OpKind::B, mb, chunk};
}
constexpr Op W(int mb, int chunk = 0) {
  return {OpKind::W, mb, chunk};
}

Schedule custom(int p, int m, std::vector<std::vector<Op>> stages) {
  Schedule s;
  s.p = p;
  s.m = m;
  s.stages = std::move(stages);
  return s;
}

SimCosts kindCosts(TimeNs f, TimeNs b, TimeNs w) {
  SimCosts c;
  c.perKind = {f, b, w};
  return c;
}

// A posting whose inputs move after the ops `rows` names (Posting::sentAfter).
std::shared_ptr<const Posting> sentAfter(std::vector<std::vector<int32_t>> rows) {
  auto p = std::make_shared<Posting>();
  p->sentAfter = std::move(rows);
  return p;
}

// A posting whose ops also await others (Posting::awaitBegin, awaits).
std::shared_ptr<const Posting> awaiting(std::vector<int32_t> begin,
                                        std::vector<Posting::Await> awaits) {
  auto p = std::make_shared<Posting>();
  p->awaitBegin = std::move(begin);
  p->awaits = std::move(awaits);
  return p;
}

struct Span {
  TimeNs start, end;
  bool operator==(const Span&) const = default;
};
std::vector<Span> spans(const StageTimeline& t) {
  std::vector<Span> out;
  for (const auto& op : t.ops) out.push_back({op.start, op.end});
  return out;
}
void PrintTo(const Span& s, std::ostream* os) {
  *os << "[" << s.start << "," << s.end << ")";
}

// When each op's input was there in `r`, per stage (readyTimes).
std::vector<std::vector<TimeNs>> readyIn(const Schedule& s, const SimCosts& c, const SimResult& r) {
  return readyTimes(PreparedSchedule(s), c, r);
}

TEST(Simulate, TwoStageOneF1BMatchesHandWorkedTimeline) {
  // T_F = 1, T_B + T_W = 2. Stage 1: F0 [1,2) BW0 [2,4) F1 [4,5) BW1 [5,7).
  // Stage 0: F0 [0,1) F1 [1,2), BW0 once stage 1's BW0 ends [4,6), BW1 [7,9).
  const Schedule s = Schedule::oneF1B(2, 2);
  const SimResult r = simulate(s, kindCosts(1, 2, 0));
  EXPECT_EQ(spans(r.stages[0]), (std::vector<Span>{{0, 1}, {1, 2}, {4, 6}, {7, 9}}));
  EXPECT_EQ(spans(r.stages[1]), (std::vector<Span>{{1, 2}, {2, 4}, {4, 5}, {5, 7}}));
  const auto ready = readyIn(s, kindCosts(1, 2, 0), r);
  EXPECT_EQ(ready[0][2], 4);  // BW0's gradient arrived when stage 1's BW0 ended
  EXPECT_EQ(ready[1][2], 2);  // F1's activation was there long before stage 1 was free
  EXPECT_EQ(ready[0][0], 0);  // F0 on the first stage has no input
  EXPECT_EQ(r.makespan, 9);
  EXPECT_EQ(r.stages[0].busy, 6);
  EXPECT_EQ(r.stages[0].idle, 3);
  EXPECT_EQ(r.stages[1].idle, 3);
  EXPECT_EQ(r.stages[1].span(), 6);
  EXPECT_EQ(r.longestStage, 0);
  EXPECT_DOUBLE_EQ(r.bubbleRate, 1.0 - 6.0 / 9.0);
  EXPECT_DOUBLE_EQ(r.idleFraction, 6.0 / 18.0);
}

TEST(Simulate, TransferIsAddedToCrossStageDependenciesOnly) {
  // ZB-V with p=2: virtual stages 0,1,2,3 on stages 0,1,1,0. The turn 1 -> 2 stays on stage 1.
  SimCosts c = kindCosts(2, 2, 2);
  c.transfer = 10;
  const Schedule s = Schedule::zbV(2, 3);
  const SimResult r = simulate(s, c);
  ASSERT_EQ(label(s.stages[1][0]), "F0");
  ASSERT_EQ(label(s.stages[1][1]), "F0.1");
  const auto ready = readyIn(s, c, r);
  EXPECT_EQ(ready[1][0], 1 + 10);                  // F0 of chunk 0 on stage 0 ends at 1
  EXPECT_EQ(ready[1][1], r.stages[1].ops[0].end);  // no transfer at the turn
}

TEST(Simulate, PerStageCostsSlowOnlyThatStageAndTheOthersWaitForIt) {
  SimCosts c = kindCosts(1, 1, 0);
  c.perStage = {{1, 1, 0}, {3, 3, 0}, {1, 1, 0}};
  const SimResult r = simulate(Schedule::gpipe(3, 2), c);
  EXPECT_EQ(r.stages[1].busy, 2 * (3 + 3));
  EXPECT_EQ(r.stages[0].busy, 2 * (1 + 1));
  // Stage 2's second forward waits for the slow stage 1: F1 on stage 1 ends at 1 + 3 + 3 = 7.
  EXPECT_EQ(r.stages[2].ops[1].start, 7);
}

TEST(Simulate, PerOpCostsOverrideKindCostsAndAreNotSplitOverChunks) {
  const Schedule s = custom(1, 2, {{F(0), F(1), BW(0), BW(1)}});
  SimCosts c = kindCosts(100, 100, 100);
  c.perOp = {{5, 7, 11, 13}};
  const SimResult r = simulate(s, c);
  EXPECT_EQ(spans(r.stages[0]), (std::vector<Span>{{0, 5}, {5, 12}, {12, 23}, {23, 36}}));
}

TEST(Simulate, AnInputSentAfterALaterOpMovesOnlyOnceThatOpHasEnded) {
  // 1F1B, p = 2, m = 2, T_F = 1, T_BW = 2, transfer 1. Stage 0 runs F0 F1 BW0 BW1.
  const Schedule s = Schedule::oneF1B(2, 2);
  SimCosts c = kindCosts(1, 2, 0);
  c.transfer = 1;
  const SimResult plain = simulate(s, c);
  EXPECT_EQ(readyIn(s, c, plain)[1][0], 1 + 1);  // F0's output leaves as F0 ends
  // F0's output sent only with the p2p after F1 (Megatron's interleaved posting): stage 1's F0
  // is ready once stage 0's F1 has ended, at 2, plus the transfer.
  c.posting = sentAfter({{-1, -1, -1, -1}, {1, -1, -1, -1}});
  const SimResult later = simulate(s, c);
  EXPECT_EQ(readyIn(s, c, later)[1][0], 2 + 1);
  EXPECT_EQ(later.makespan, plain.makespan + 1);
  // Positions that name no later op of the input's stage, or the wrong shape: one sentence.
  for (const auto& bad : std::vector<std::vector<std::vector<int32_t>>>{
           {{-1, -1, -1, -1}, {0, -1, -1, -1}},  // the producer itself
           {{-1, -1, -1, -1}, {4, -1, -1, -1}},  // past the stage's ops
           {{1, -1, -1, -1}, {-1, -1, -1, -1}},  // F0 on stage 0 has no input from a stage
           {{-1, -1, -1, -1}, {-1, -1, -1}}}) {  // not shaped like the schedule
    c.posting = sentAfter(bad);
    EXPECT_THROW(simulate(s, c), CostError);
  }
}

TEST(Simulate, AnOpAlsoAwaitsTheOpsItsBlockingBatchWaitedFor) {
  // 1F1B, p = 2, m = 2, T_F = 1, T_BW = 2, transfer 1. Stage 0: F0 [0,1) F1 [1,2), BW0 once
  // stage 1's BW0 ends at 5, plus the transfer: [6,8), BW1 [9,11).
  const Schedule s = Schedule::oneF1B(2, 2);
  SimCosts c = kindCosts(1, 2, 0);
  c.transfer = 1;
  const SimResult plain = simulate(s, c);
  EXPECT_EQ(plain.stages[0].ops[1].start, 1);
  // Stage 0's F1 held by a batch that also waited for stage 1's F0 (its post of a receive):
  // F1 starts once that has ended (at 3) plus the transfer.
  // Op 1 (stage 0's F1) awaits one op.
  c.posting = awaiting({0, 0, 1, 1, 1, 1, 1, 1, 1}, {{1, 0}});
  const SimResult held = simulate(s, c);
  EXPECT_EQ(held.stages[0].ops[1].start, 3 + 1);
  // An awaited op that is not the schedule's, or lists of the wrong shape: one sentence.
  c.posting = awaiting({0, 0, 1, 1, 1, 1, 1, 1, 1}, {{1, 4}});
  EXPECT_THROW(simulate(s, c), CostError);
  c.posting = awaiting({0, 0, 1, 1, 1, 1, 1, 1}, {{1, 0}});
  EXPECT_THROW(simulate(s, c), CostError);
}

// readyTimes reads each op's input time off the replay, where the simulator no longer keeps it:
// under every posting, each op starts as the later of it and its stage's previous op's end.
TEST(Simulate, EveryOpStartsWhenItsInputIsReadyOrItsStageIsFree) {
  const Schedule s = Schedule::oneF1B(2, 2);
  SimCosts c = kindCosts(1, 2, 0);
  c.transfer = 1;
  auto fused = std::make_shared<Posting>();
  fused->receiveAfterPrevious = {{0, 1, 1, 1}, {0, 1, 1, 1}};
  for (const auto& posting : std::vector<std::shared_ptr<const Posting>>{
           nullptr, sentAfter({{-1, -1, -1, -1}, {1, -1, -1, -1}}), fused,
           awaiting({0, 0, 1, 1, 1, 1, 1, 1, 1}, {{1, 0}})}) {
    c.posting = posting;
    const SimResult r = simulate(s, c);
    const auto ready = readyIn(s, c, r);
    for (size_t st = 0; st < r.stages.size(); ++st) {
      for (size_t i = 0; i < r.stages[st].ops.size(); ++i) {
        const TimeNs free = i == 0 ? 0 : r.stages[st].ops[i - 1].end;
        EXPECT_EQ(r.stages[st].ops[i].start, std::max(ready[st][i], free))
            << "stage " << st << " op " << i;
      }
    }
  }
  // Stage 0's F1 awaits stage 1's F0 (ends at 3), plus the transfer.
  EXPECT_EQ(readyIn(s, c, simulate(s, c))[0][1], 3 + 1);
}

TEST(Simulate, FusedBackwardDefaultsToBPlusWAndCanBeSetApart) {
  const Schedule s = custom(1, 1, {{F(0), BW(0)}});
  EXPECT_EQ(simulate(s, kindCosts(1, 2, 3)).makespan, 1 + 2 + 3);
  SimCosts c = kindCosts(1, 2, 3);
  c.perKind.bw = 4;
  EXPECT_EQ(simulate(s, c).makespan, 1 + 4);
}

TEST(Simulate, ChunksSplitTheStageCostSoTheSharesAddUpExactly) {
  EXPECT_EQ(chunkShare(10, 0, 3) + chunkShare(10, 1, 3) + chunkShare(10, 2, 3), 10);
  EXPECT_EQ(chunkShare(10, 0, 3), 3);
  EXPECT_EQ(chunkShare(10, 2, 3), 4);
  // Interleaved p=1, v=2: the two chunks of one microbatch together cost one stage's T.
  const SimResult r = simulate(Schedule::interleaved1F1B(1, 1, 2), kindCosts(10, 6, 4));
  EXPECT_EQ(r.makespan, 10 + 6 + 4);
  EXPECT_EQ(r.stages[0].ops[0].end, 5);
}

TEST(Simulate, MemoryFollowsZbAccountingFAllocatesBKeepsMwWFrees) {
  // M_B = 100, M_W = 30: F0 100, F1 200, B0 130, B1 60, W0 30, W1 0.
  const Schedule s = custom(1, 2, {{F(0), F(1), B(0), B(1), W(0), W(1)}});
  SimCosts c = kindCosts(1, 1, 1);
  c.memory = {100, 30};
  EXPECT_EQ(simulate(s, c).stages[0].peakMemory, 200);
  // A fused backward frees M_B at once.
  const Schedule fused = custom(1, 2, {{F(0), BW(0), F(1), BW(1)}});
  EXPECT_EQ(simulate(fused, c).stages[0].peakMemory, 100);
}

TEST(Simulate, DeadlockedOrderThrowsScheduleErrorNamingTheStuckOps) {
  const Schedule s = custom(2, 2, {{F(0), BW(0), F(1), BW(1)}, {F(0), F(1), BW(0), BW(1)}});
  try {
    simulate(s, kindCosts(1, 1, 1));
    FAIL() << "a deadlocked order simulated";
  } catch (const ScheduleError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("schedule deadlocks: stage 0 op #1 (BW0) waits for B0"),
              std::string::npos)
        << message;
  }
}

TEST(Simulate, OrdersThatCannotRunThrowScheduleError) {
  // A duplicate, an input nobody produces, an op outside the schedule's chunks.
  EXPECT_THROW(simulate(custom(1, 1, {{F(0), F(0), BW(0)}}), kindCosts(1, 1, 1)), ScheduleError);
  EXPECT_THROW(simulate(custom(2, 1, {{}, {F(0)}}), kindCosts(1, 1, 1)), ScheduleError);
  EXPECT_THROW(simulate(custom(1, 1, {{F(0, 1)}}), kindCosts(1, 1, 1)), ScheduleError);
}

TEST(Simulate, ObservedForwardOnlyOrderSimulates) {
  const SimResult r = simulate(custom(2, 2, {{F(0), F(1)}, {F(0), F(1)}}), kindCosts(3, 1, 1));
  EXPECT_EQ(r.makespan, 9);
  EXPECT_EQ(r.stages[1].firstStart, 3);
}

TEST(Simulate, StageWithoutOpsIsIdleThroughout) {
  const SimResult r = simulate(custom(2, 1, {{F(0)}, {}}), kindCosts(1, 1, 1));
  EXPECT_EQ(r.stages[1].busy, 0);
  EXPECT_EQ(r.stages[1].idle, r.makespan);
  EXPECT_EQ(r.stages[1].span(), 0);
}

TEST(Simulate, BadCostsThrowCostError) {
  const Schedule s = Schedule::oneF1B(2, 2);
  EXPECT_THROW(simulate(s, kindCosts(-1, 1, 1)), CostError);
  SimCosts wrongStages = kindCosts(1, 1, 1);
  wrongStages.perStage = {{1, 1, 1}};
  EXPECT_THROW(simulate(s, wrongStages), CostError);
  SimCosts wrongOps = kindCosts(1, 1, 1);
  wrongOps.perOp = {{1, 1, 1, 1}, {1, 1}};
  EXPECT_THROW(simulate(s, wrongOps), CostError);
  SimCosts negativeTransfer = kindCosts(1, 1, 1);
  negativeTransfer.transfer = -5;
  EXPECT_THROW(simulate(s, negativeTransfer), CostError);
}

TEST(Simulate, StartTimesAreTheLongestPathWhateverTheWalkOrder) {
  // Re-simulating a result's own per-op durations as measured costs gives the same timeline.
  const Schedule s = Schedule::zbH2(4, 9);
  SimCosts c = kindCosts(3, 5, 2);
  c.transfer = 1;
  const SimResult first = simulate(s, c);
  SimCosts measured = c;
  for (const auto& stage : first.stages) {
    measured.perOp.emplace_back();
    for (const auto& op : stage.ops) measured.perOp.back().push_back(op.end - op.start);
  }
  const SimResult second = simulate(s, measured);
  for (int st = 0; st < s.p; ++st) EXPECT_EQ(spans(first.stages[st]), spans(second.stages[st]));
}

TEST(Simulate, PreparedScheduleReusedWithNewCostsMatchesFreshSimulations) {
  const Schedule s = Schedule::interleaved1F1B(4, 8, 2);
  const PreparedSchedule prepared(s);
  SimResult reused;
  for (const TimeNs f : {4, 10, 2}) {
    SimCosts c = kindCosts(f, 6, 2);
    c.transfer = f / 2;
    simulate(prepared, c, reused);
    const SimResult fresh = simulate(s, c);
    EXPECT_EQ(reused.makespan, fresh.makespan) << "T_F=" << f;
    EXPECT_EQ(reused.longestStage, fresh.longestStage);
    EXPECT_DOUBLE_EQ(reused.bubbleRate, fresh.bubbleRate);
    for (int st = 0; st < s.p; ++st) {
      EXPECT_EQ(spans(reused.stages[st]), spans(fresh.stages[st]));
      EXPECT_EQ(reused.stages[st].busy, fresh.stages[st].busy);
      EXPECT_EQ(reused.stages[st].peakMemory, fresh.stages[st].peakMemory);
    }
  }
}

// The simulator keeps its working lists per thread (issue 28): what a thread simulated before,
// of another shape, or an order that deadlocked half-way, changes nothing in the next result.
TEST(Simulate, ResultsDoNotDependOnWhatTheThreadSimulatedBefore) {
  const std::vector<Schedule> schedules = {
      Schedule::interleaved1F1B(8, 16, 2),
      custom(2, 2, {{F(0), F(1), BW(0), BW(1)}, {F(0), BW(0), F(1), BW(1)}}), Schedule::zbH2(4, 9),
      Schedule::oneF1B(3, 5)};
  // Runs half-way, then deadlocks (the walk stops with lists partly filled).
  const Schedule deadlocked =
      custom(2, 2, {{F(0), BW(0), F(1), BW(1)}, {F(0), F(1), BW(0), BW(1)}});
  SimCosts c = kindCosts(3, 5, 2);
  c.transfer = 1;
  // Each alone, in a thread of its own: lists that never held anything else.
  std::vector<SimResult> alone(schedules.size());
  for (size_t i = 0; i < schedules.size(); ++i) {
    std::thread([&, i] { alone[i] = simulate(schedules[i], c); }).join();
  }
  for (int round = 0; round < 2; ++round) {
    for (size_t i = 0; i < schedules.size(); ++i) {
      EXPECT_THROW(simulate(deadlocked, c), ScheduleError);
      const SimResult r = simulate(schedules[i], c);
      ASSERT_EQ(r.stages.size(), alone[i].stages.size()) << i;
      EXPECT_EQ(r.makespan, alone[i].makespan) << i;
      EXPECT_EQ(r.peakMemory, alone[i].peakMemory) << i;
      for (size_t st = 0; st < r.stages.size(); ++st) {
        EXPECT_EQ(spans(r.stages[st]), spans(alone[i].stages[st])) << i << " stage " << st;
      }
    }
  }
}

TEST(Simulate, PreparingAnOrderThatCannotRunThrowsBeforeAnyCosts) {
  const Schedule s = custom(1, 1, {{F(0), F(0), BW(0)}});
  EXPECT_THROW(PreparedSchedule{s}, ScheduleError);
}

}  // namespace
}  // namespace bubblescope::engine
