// Root cause first (issue 26, item 4): gaps blamed on one cause are one entry, its knock-ons
// folded under it, and the entries ordered by what removing each wins.
#include "analyzer/idle/root_causes.h"

#include <gtest/gtest.h>

namespace bubblescope::analysis {
namespace {

constexpr TimeNs kMs = 1'000'000;

Op f(int mb) {
  return {OpKind::F, mb, 0};
}
Op bw(int mb) {
  return {OpKind::BW, mb, 0};
}

// Gaps on a hand-built pipeline: each ends before an op recorded in `ops`.
struct Gaps {
  std::vector<OpRecord> ops;
  std::vector<Gap> gaps;
  std::vector<TransferRecord> transfers;

  // A gap on `stage` in `step` before `next`, of `idle` in class `cls`, blamed on `blamed`
  // (cause `cause`) on `blamedStage`; returns its index.
  int add(int stage, int step, Op next, TimeNs idle, IdleClass cls, IdleClass cause,
          int blamedStage, Op blamed, double ratio = 0) {
    ops.push_back({next, stage, step, 0, kMs, kMs});
    Gap g;
    g.stage = stage;
    g.step = step;
    g.idle = idle;
    g.byClass[static_cast<int>(cls)] = idle;
    g.dominant = cls;
    g.nextOp = static_cast<int>(ops.size()) - 1;
    g.blame.cause = cause;
    g.blame.stage = blamedStage;
    g.blame.op = blamed;
    g.blame.costRatio = ratio;
    gaps.push_back(g);
    return static_cast<int>(gaps.size()) - 1;
  }

  std::vector<std::optional<CauseId>> causes() const {
    const Links links(transfers);
    std::vector<std::optional<CauseId>> out;
    for (const Gap& g : gaps) out.push_back(causeOf(g, links));
    return out;
  }

  std::vector<RootCause> group(const std::map<CauseId, TimeNs>& wins = {}) const {
    return groupRootCauses(gaps, causes(), ops, wins);
  }
};

CauseId stallAt(int stage, Op op) {
  return {IdleClass::OtherStall, stage, -1, true, op};
}

// The demo's shape: stage 1 stalls 15 ms before F5; stages 2 and 3 wait for F5, stage 0 for the
// backward that comes back late. Four gaps, one cause: the stall's own gap, three knock-ons.
TEST(RootCauses, StallAndItsKnockOnsAreOneEntry) {
  Gaps p;
  const IdleClass st = IdleClass::OtherStall;
  const int knock3 = p.add(3, 1, f(5), 15'170'000, st, st, 1, f(5));
  const int own = p.add(1, 1, f(5), 14'980'000, st, st, 1, f(5));
  const int knock0 = p.add(0, 1, bw(3), 14'990'000, st, st, 1, f(5));
  const int knock2 = p.add(2, 1, f(5), 13'320'000, st, st, 1, f(5));
  const int other =
      p.add(3, 0, f(5), 1'830'000, IdleClass::Imbalance, IdleClass::Imbalance, 2, f(5), 1.3);
  const std::vector<RootCause> causes =
      p.group({{stallAt(1, f(5)), 15 * kMs}, {{IdleClass::Imbalance, 2, -1, false, {}}, 2 * kMs}});
  ASSERT_EQ(causes.size(), 2u);
  const RootCause& stall = causes[0];
  EXPECT_EQ(stall.id, stallAt(1, f(5)));
  EXPECT_EQ(stall.win, 15 * kMs);
  EXPECT_EQ(stall.own, std::vector<int>{own});
  EXPECT_EQ(stall.knockOns, (std::vector<int>{knock3, knock0, knock2}));  // largest first
  EXPECT_EQ(stall.knockOnIdle, 15'170'000 + 14'990'000 + 13'320'000);
  EXPECT_EQ(stall.idle, stall.knockOnIdle + 14'980'000);
  EXPECT_EQ(stall.steps, std::vector<int>{1});
  EXPECT_EQ(stall.text,
            "F5 on stage 1 started late, with nothing in the trace to say why "
            "(stall: other)");
  EXPECT_EQ(causes[1].knockOns, std::vector<int>{other});
}

// What removing a cause wins orders the list, not the size of its largest gap: a knock-on can
// be larger than the gap where its cause happened, and one slow stage's many small gaps can
// outweigh a single large stall.
TEST(RootCauses, OrderedByWinThenByIdle) {
  Gaps p;
  const IdleClass st = IdleClass::HostStall, imb = IdleClass::Imbalance;
  p.add(1, 0, f(2), 9 * kMs, st, st, 1, f(2));
  for (int mb = 0; mb < 6; ++mb) p.add(3, 0, f(mb), 2 * kMs, imb, imb, 2, f(mb), 1.3);
  p.add(0, 0, f(4), 3 * kMs, st, st, 0, f(4));
  const CauseId host1{st, 1, -1, true, f(2)}, host0{st, 0, -1, true, f(4)};
  const CauseId slow2{imb, 2, -1, false, {}};
  std::vector<RootCause> causes = p.group({{host1, 4 * kMs}, {slow2, 10 * kMs}, {host0, 4 * kMs}});
  ASSERT_EQ(causes.size(), 3u);
  EXPECT_EQ(causes[0].id, slow2);
  EXPECT_EQ(causes[1].id, host1);  // ties on the win: the larger idle first
  EXPECT_EQ(causes[2].id, host0);
}

// Imbalance is the stage's: whichever of its ops was binding, its gaps are one cause, and none
// is its own (an op that runs long keeps its stage busy). Jitter is the op's.
TEST(RootCauses, ImbalanceIsTheStageJitterTheOp) {
  Gaps p;
  const IdleClass imb = IdleClass::Imbalance, jit = IdleClass::Jitter;
  p.add(3, 0, f(3), 2 * kMs, imb, imb, 2, f(3), 1.2);
  p.add(1, 0, bw(4), 3 * kMs, imb, imb, 2, bw(4), 1.4);
  p.add(2, 0, bw(2), 2 * kMs, imb, imb, 2, f(6), 1.3);
  p.add(0, 0, f(1), 1 * kMs, jit, jit, 1, f(0), 1.5);
  p.add(0, 1, f(1), 1 * kMs, jit, jit, 1, f(0), 1.6);
  p.add(2, 0, f(2), 1 * kMs, jit, jit, 1, f(1), 1.5);
  const std::vector<RootCause> causes = p.group();
  ASSERT_EQ(causes.size(), 3u);
  EXPECT_EQ(causes[0].id, (CauseId{imb, 2, -1, false, {}}));
  EXPECT_TRUE(causes[0].own.empty());
  EXPECT_EQ(causes[0].knockOns.size(), 3u);
  EXPECT_DOUBLE_EQ(causes[0].costRatio, 1.4);
  EXPECT_EQ(causes[0].text,
            "stage 2: its ops run 1.4x their ideal, longer than the other stages' (imbalance)");
  EXPECT_EQ(causes[1].id, (CauseId{jit, 1, -1, true, f(0)}));
  EXPECT_EQ(causes[1].steps, (std::vector<int>{0, 1}));
  EXPECT_EQ(causes[1].text, "F0 on stage 1 ran up to 1.6x its ideal (jitter)");
  EXPECT_EQ(causes[2].id, (CauseId{jit, 1, -1, true, f(1)}));
}

// A late transfer is the link's, whichever message was late: the receiver is where the producer's
// output went. Its own gap is the receiver's before the op that consumed it.
TEST(RootCauses, CommStallIsTheLink) {
  Gaps p;
  const IdleClass comm = IdleClass::CommStall;
  p.transfers.push_back({OpKind::F, 3, 2, 3, 0, 0, 0, 0, 0});
  p.transfers.push_back({OpKind::F, 4, 2, 3, 0, 0, 0, 0, 0});
  p.transfers.push_back({OpKind::B, 4, 2, 1, 0, 0, 0, 0, 0});
  const int own = p.add(3, 0, f(3), 2 * kMs, comm, comm, 2, f(3));
  const int knock = p.add(2, 0, bw(1), 1 * kMs, comm, comm, 2, f(3));
  const int own2 = p.add(3, 0, f(4), 2 * kMs, comm, comm, 2, f(4));
  const int back = p.add(1, 0, bw(4), 2 * kMs, comm, comm, 2, bw(4));
  const std::vector<RootCause> causes = p.group();
  ASSERT_EQ(causes.size(), 2u);
  EXPECT_EQ(causes[0].id, (CauseId{comm, 2, 3, false, {}}));
  EXPECT_EQ(causes[0].own, (std::vector<int>{own, own2}));
  EXPECT_EQ(causes[0].knockOns, std::vector<int>{knock});
  EXPECT_EQ(causes[0].text, "the link stage 2 -> stage 3 (stall: comm)");
  EXPECT_EQ(causes[1].id, (CauseId{comm, 2, 1, false, {}}));
  EXPECT_EQ(causes[1].own, std::vector<int>{back});
}

// A gap the walk found no place for: a stall stays on its own stage (where the evidence is),
// imbalance goes to the most imbalanced stage if there is one, jitter has no op to name.
// Schedule-own idle has no cause at all.
TEST(RootCauses, UnplacedGapsGoToTheirLargestAvoidableClass) {
  Gaps p;
  const Op none{};
  const int stall =
      p.add(2, 0, f(1), 3 * kMs, IdleClass::HostStall, IdleClass::HostStall, -1, none);
  p.add(1, 0, f(1), 2 * kMs, IdleClass::Imbalance, IdleClass::Imbalance, -1, none);
  p.add(0, 0, f(0), 9 * kMs, IdleClass::Warmup, IdleClass::Warmup, -1, none);
  // Mostly warm-up, with a little jitter the walk did not explain.
  const int mixed = p.add(3, 0, f(0), 4 * kMs, IdleClass::Warmup, IdleClass::Warmup, -1, none);
  p.gaps[mixed].byClass[static_cast<int>(IdleClass::Warmup)] -= kMs;
  p.gaps[mixed].byClass[static_cast<int>(IdleClass::Jitter)] += kMs;

  const auto causes = p.causes();
  EXPECT_EQ(causes[stall], (CauseId{IdleClass::HostStall, 2, -1, false, {}}));
  EXPECT_EQ(causes[1], (CauseId{IdleClass::Imbalance, -1, -1, false, {}}));
  EXPECT_FALSE(causes[2].has_value());
  EXPECT_EQ(causes[mixed], (CauseId{IdleClass::Jitter, -1, -1, false, {}}));
  // Imbalance the walk found no op for is the stage whose means differ, where there is one.
  EXPECT_EQ(causeOf(p.gaps[1], Links(p.transfers), 3),
            (CauseId{IdleClass::Imbalance, 3, -1, false, {}}));
  EXPECT_EQ(causeOf(p.gaps[mixed], Links(p.transfers), 3),
            (CauseId{IdleClass::Jitter, -1, -1, false, {}}));
  const std::vector<RootCause> grouped = p.group();
  ASSERT_EQ(grouped.size(), 3u);
  EXPECT_EQ(grouped[0].own, std::vector<int>{stall});  // seen where it happened
  EXPECT_EQ(grouped[0].text, "the host was busy on stage 2 (stall: host)");
}

// The lists print milliseconds with two decimals: a cause with less idle would read 0.00 ms.
TEST(RootCauses, CausesTooSmallToPrintAreLeftOut) {
  Gaps p;
  const IdleClass jit = IdleClass::Jitter;
  p.add(1, 0, f(1), kLeastListedGap - 1, jit, jit, 0, f(1));
  p.add(1, 0, f(2), kLeastListedGap, jit, jit, 0, f(2));
  const std::vector<RootCause> causes = p.group();
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(causes[0].id.op, f(2));
}

// The replay with measured op costs has no stalls: a step's measured time beyond it is what its
// stalls cost together, shared by the idle each caused; other causes get none of it.
TEST(RootCauses, StallsShareTheStepsExcessByTheirIdle) {
  const CauseId a = stallAt(1, f(5)), b{IdleClass::CommStall, 2, 3, false, {}};
  const CauseId slow{IdleClass::Imbalance, 2, -1, false, {}};
  std::map<CauseId, TimeNs> wins{{a, kMs}};
  addStallWins(8 * kMs, {{a, 3 * kMs}, {b, 1 * kMs}, {slow, 20 * kMs}}, wins);
  EXPECT_EQ(wins[a], kMs + 6 * kMs);
  EXPECT_EQ(wins[b], 2 * kMs);
  EXPECT_EQ(wins.count(slow), 0u);
  addStallWins(0, {{a, 3 * kMs}}, wins);  // a replay as long as the step: no stall cost anything
  EXPECT_EQ(wins[a], 7 * kMs);
}

TEST(RootCauses, LinksFindTheReceiverOfAProducersOutput) {
  const std::vector<TransferRecord> transfers = {
      {OpKind::F, 3, 2, 3, 1, 0, 0, 0, 0},
      {OpKind::B, 3, 2, 1, 1, 0, 0, 0, 0},
      {OpKind::F, 3, 0, 1, 1, 0, 0, 0, 0},
  };
  const Links links(transfers);
  EXPECT_EQ(links.receiverOf(1, 2, f(3)), 3);
  EXPECT_EQ(links.receiverOf(1, 2, bw(3)), 1);  // a backward sends gradients
  EXPECT_EQ(links.receiverOf(1, 2, {OpKind::B, 3, 0}), 1);
  EXPECT_EQ(links.receiverOf(0, 2, f(3)), -1);  // another step
  EXPECT_EQ(links.receiverOf(1, 1, f(3)), -1);
  EXPECT_EQ(Links(transfers, 2).receiverOf(1, 2, f(3)), -1);  // only from `first` on
}

}  // namespace
}  // namespace bubblescope::analysis
