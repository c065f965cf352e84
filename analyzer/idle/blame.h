#pragma once
// Per-gap labels (analysis.md §3): why a stage sat idle, found by walking back along the
// dependency that held its next op: the previous op on the stage or the input from another stage.
// The walk ends at a producer that ran longer than its ideal cost (imbalance or jitter, blamed on
// that op), at a late arrival (comm stall), at a late launch (host or other stall), or at an op
// that started as soon as it could (the schedule's own bubble: warm-up, steady or drain).
#include <optional>
#include <string>
#include <vector>

#include "analyzer/idle/blame_words.h"
#include "analyzer/idle/scenarios.h"
#include "analyzer/result/result.h"

namespace bubblescope::analysis {

// The walk gives its answer as data (blame_words.h); gap_sentence.h writes the words.
class BlameWalker {
 public:
  // `measuredCosts` is the step simulated with measured op costs and no stalls (T_ops): how far
  // an op started behind it is the delay stalls upstream have already caused.
  BlameWalker(const PipelineTrace& pipeline, const StepView& step, const MeanCosts& costs,
              TimeNs transfer, const engine::SimResult& measuredCosts);
  BlameWalker() = default;
  // Walks another step, in this walker's lists, whose room is kept: a walker made anew for each
  // step of a run cost a tenth of a 10^6-step analysis in allocations (issue 28).
  void reset(const PipelineTrace& pipeline, const StepView& step, const MeanCosts& costs,
             TimeNs transfer, const engine::SimResult& measuredCosts);

  // Why the op at position `pos` of `stage`'s ops in this step started when it did; `baseline`
  // is the class of a gap the chain does not explain (warm-up, schedule bubble).
  Blamed startOf(int stage, int pos, IdleClass baseline) const;
  // Why `stage` waited from its last op to the end of the step.
  Blamed drainOf(int stage) const;

  // When the op at `pos` could have started: max(previous op's end, input arrival).
  TimeNs readyTime(int stage, int pos) const;
  // Host activity covering [from, to] on the stage.
  TimeNs hostBusy(int stage, TimeNs from, TimeNs to) const;
  // The host range that covered most of [from, to) on the stage, if it covered at least half
  // of it: its name's index into the stage's RankOps::hostNames ("dataloader"); -1 when none did.
  int hostNameDuring(int stage, TimeNs from, TimeNs to) const;
  // The position of the stage's op `opIndex` (into its ops) in the step; -1 if not one of its.
  int positionOf(int stage, int opIndex) const { return posOf_[stage].at(opIndex); }

 private:
  const RecognizedOp& op(int stage, int pos) const;
  TimeNs tolerance(const Op& op) const;
  // How much later than in T_ops the op started: delay that stalls before it caused.
  TimeNs upstreamDelay(int stage, int pos) const;
  // How much later than in T_ops the op was ready, at `ready`.
  TimeNs readyDelay(int stage, int pos, TimeNs ready) const;
  // How much longer than its ideal the op ran (0 where the ideal is unknown).
  TimeNs overrun(int stage, int pos) const;
  // `fromDrain`: the walk starts at the step's last op, for a drain: the op before it on its
  // stage may be what held it.
  Blamed walk(int stage, int pos, IdleClass baseline, bool fromDrain = false) const;
  // The host posted the receive of the op at pos after the stage was free (`stageFree`) and its
  // data could move (`dataFrom`): a host stall on this stage, however soon the data then came.
  // `delay`: how long after both the host posted it.
  std::optional<Blamed> latePost(int stage, int pos, TimeNs stageFree, TimeNs dataFrom,
                                 TimeNs& delay) const;
  // The send that carried its input began after its producer (ps, pp) ended, by more than the
  // producer itself ran long, because the sender's host posted it late (stall: host on the
  // sender). One posted in time that its stream held is left to the walk.
  // `delay`: how long after the producer ended the send began (queued) or was posted (host).
  std::optional<Blamed> lateSend(int stage, int pos, int ps, int pp, TimeNs& delay) const;
  // The input of the op at pos moved `waited` after its producer ended because one side's kernel
  // queued behind a slow transfer on its stream (StageStep::heldBehind): a comm stall on that
  // transfer's link, whichever way it ran. `decisive`: that transfer was slow, or its own time
  // is most of the wait; else the blame is only what the walk says where it finds nothing else.
  // `cost`: the part of the wait the queue explains.
  std::optional<Blamed> heldBehind(int stage, int pos, TimeNs waited, bool& decisive,
                                   TimeNs& cost) const;
  // The largest late transfer a walk passed by.
  struct Passed {
    TimeNs most = 0;
    std::optional<Blamed> blame;
    void offer(TimeNs delay, Blamed b);
    // b's cause is no stall, and the largest stall passed is more than `beyond`: that stall is
    // what the gap's stall piece is.
    bool names(const Blame& b, TimeNs beyond) const;
    // Where names(b, beyond): that stall's class as b's stallPassed (true).
    bool noteOn(Blame& b, TimeNs beyond) const;
    // What a walk passed further on, offered after this one's.
    void merge(const Passed& later);
  };
  // One move of the walk at (stage, pos): a blame it returns, or the op it goes on to (stage
  // and pos; -1 where the chain ends), with the late transfers it passed there.
  struct Move {
    std::optional<Blamed> blame;
    int stage = -1, pos = -1;
    Passed offers;
    static Move returning(Blamed b);
    static Move next(int stage, int pos, Passed offers);
  };
  // `first`: the op a gap ends with, which the op before it on its stage cannot have held.
  Move stepAt(int stage, int pos, bool first, bool fromDrain) const;
  // Where a walk that reached (stage, pos) ends: a blame returned on the way, or the largest
  // late transfer it passed. Every walk of a step crosses the same ops (a warm-up gap's chain
  // runs back through every stage before it), so each op's outcome is found once per step and
  // kept: the step's walks cost its ops, not its stages times its ops (issue 28).
  struct Outcome {
    // Whether the walk returned a blame from there: then `passed.blame` is that blame (its
    // stallPassed: the largest stall passed before it) and `passed.most` that stall's size. Else
    // `passed` is the largest late transfer passed. One blame either way: a step of 10,000 stages
    // keeps ~40,000 outcomes.
    bool returned = false;
    Passed passed;
    // Returned: the delay the returned blame itself names (its words' `took`), which a larger
    // stall passed before it on the chain outweighs (outcomeFrom).
    TimeNs size = 0;
  };
  int outcomeFrom(int stage, int pos) const;  // an index into outcomes_
  // Whether a stall the walk passed (`offers`) is larger than the stall returned further on
  // (`next`), and so is the chain's answer in its place.
  static bool outweighs(const Passed& offers, const Outcome& next);
  // The op at pos ran longer than its ideal (and that, not a late start, is what made it late):
  // imbalance or jitter blamed on it, "behind F3 on stage 2, which ran 1.3x its ideal".
  std::optional<Blamed> ranLong(int stage, int pos) const;

  // The position of the stage's op `opIndex` among the step's (std::out_of_range if not there).
  int posOf(int stage, int opIndex) const;

  const PipelineTrace* pl_ = nullptr;
  const StepView* step_ = nullptr;
  const MeanCosts* costs_ = nullptr;
  TimeNs transfer_ = 0;
  const engine::SimResult* measuredCosts_ = nullptr;
  std::vector<StepPositions> posOf_;  // per stage
  // Per stage: when it was free of the ops before each position (the step's start, then the
  // latest end so far), so a walk's step costs the same at any position.
  std::vector<std::vector<TimeNs>> freeAt_;
  int lastStage_ = -1, lastPos_ = -1;  // the op that ends the step (the first such, in order)
  // Per stage and position: the walk's outcome from there, once found (an index into outcomes_,
  // of which the first is "ends, passing nothing").
  static constexpr int kUnknown = -1, kVisiting = -2, kEndsEmpty = 0;
  mutable std::vector<std::vector<int>> outcomeOf_;
  mutable std::vector<Outcome> outcomes_;
};

}  // namespace bubblescope::analysis
