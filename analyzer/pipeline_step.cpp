#include "analyzer/pipeline_step.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <span>
#include <stdexcept>
#include <utility>

#include "analyzer/idle/blame.h"
#include "analyzer/idle/classify.h"
#include "analyzer/idle/gap_sentence.h"
#include "analyzer/whatif/cause_wins.h"
#include "reference_engine/schedule/validate.h"
#include "reference_engine/sim/simulate.h"

namespace bubblescope::analysis {
namespace {

// The op whose replay starts latest against when it ran, if later than 0.
void noteReplayLag(const PipelineTrace& pl, const StepView& view, const engine::Schedule& order,
                   const engine::SimResult& replay, StepOutcome& step) {
  for (const StageStep& ss : view.stages) {
    for (size_t j = 0; j < ss.ops.size(); ++j) {
      const TimeNs ran = pl.stages[ss.stage].ops.ops[ss.ops[j]].start - view.start;
      const TimeNs late = replay.stages[ss.stage].ops[j].start - ran;
      if (late <= step.latest) continue;
      step.latest = late;
      char ms[32];
      std::snprintf(ms, sizeof ms, "%.2f", static_cast<double>(late) / 1e6);
      step.latestOp = "the replay starts " + engine::label(order.stages[ss.stage][j]) +
                      " on stage " + std::to_string(ss.stage) + " in step " +
                      std::to_string(view.number) + " " + ms + " ms later than it ran";
    }
  }
}

}  // namespace

StepOutcome analyzeStep(const StepInputs& in, const StepView& view, bool wantOrder,
                        bool wantIdealOps, const GapFolder* fold) {
  const PipelineTrace& pl = in.pl;
  const MeanCosts& costs = in.costs;
  StepOutcome step;
  step.info.number = view.number;
  engine::Schedule order = observedSchedule(pl, view);
  // One order, checked and made a DAG once, replayed under each cost model (and once per stage).
  std::optional<engine::PreparedSchedule> prepared;
  // The costs and replays in this thread's lists, whose room is kept from step to step: made
  // anew for each of a run's steps, they were a tenth of a 10^6-step analysis (issue 28).
  // The three share the step's posting.
  thread_local engine::SimCosts idealCosts, stageCosts, measuredCosts;
  thread_local StepSims sims;
  thread_local const auto posting = std::make_shared<engine::Posting>();
  observedPosting(view, pl.p, *posting);
  stepCosts(pl, view, costs, Scenario::Ideal, in.transferMedian, posting, idealCosts);
  stepCosts(pl, view, costs, Scenario::Ops, in.transferMedian, posting, measuredCosts);
  stepCosts(pl, view, costs, Scenario::Stage, in.transferMedian, posting, stageCosts);
  try {
    prepared.emplace(order);
    engine::simulate(*prepared, idealCosts, sims.ideal);
    engine::simulate(*prepared, stageCosts, sims.stage);
    engine::simulate(*prepared, measuredCosts, sims.ops);
  } catch (const std::invalid_argument& e) {
    step.refused = e.what();  // ScheduleError or CostError: the order cannot be re-run
    return step;
  }
  // The records name the step by its common step (view.index) until committed.
  const int local = view.index;
  step.info = {view.number, view.start, view.end};
  step.measured = view.end - view.start;
  step.ideal = sims.ideal.makespan + in.tailMedian;
  step.stage = sims.stage.makespan + in.tailMedian;
  step.replayedOps = sims.ops.makespan + in.tailMedian;
  step.replayed = sims.ops.makespan + tailOf(pl, view);
  noteReplayLag(pl, view, order, sims.ops, step);
  const std::vector<engine::Problem> missing = engine::missingOps(order);
  step.finished = missing.empty();
  if (!missing.empty()) {
    step.unfinished = "step " + std::to_string(view.number) + ": " + missing.front().message;
  }
  if (wantIdealOps) {
    size_t ideal = 0;
    for (const auto& ops : order.stages) ideal += ops.size();
    step.idealOps.reserve(ideal);
    for (int s = 0; s < pl.p; ++s) {
      for (size_t j = 0; j < order.stages[s].size(); ++j) {
        const auto& t = sims.ideal.stages[s].ops[j];
        step.idealOps.push_back(
            {order.stages[s][j], s, local, t.start, t.end, costs.idealOf(order.stages[s][j])});
      }
    }
  }
  step.alone = stageAloneMakespans(*prepared, idealCosts, measuredCosts, sims.ideal.makespan);

  thread_local BlameWalker blame;  // its lists kept from step to step, as the replays
  blame.reset(pl, view, costs, in.transferMedian, sims.ops);
  // Sized once: a step of 10,000 stages holds ~90,000 records, and a vector grown by doubling
  // holds up to twice its records.
  size_t opsInStep = 0;
  for (const StageStep& ss : view.stages) opsInStep += ss.ops.size();
  step.splits.reserve(static_cast<size_t>(pl.p));
  if (fold == nullptr) {
    step.gaps.reserve(opsInStep + static_cast<size_t>(pl.p));  // one before each op, one after
    step.causeOfGap.reserve(step.gaps.capacity());
    if (!in.everySentence) step.words.reserve(step.gaps.capacity());
  }
  step.ops.reserve(opsInStep);
  // The records first, as the gaps name the op that ended them by its place among the step's
  // records (its stage's first record and its position in the stage's step), and their causes
  // read the step's transfers.
  std::vector<StepPositions> posOf(pl.p);
  std::vector<int> firstRecord(pl.p, 0);
  for (const StageStep& ss : view.stages) {
    posOf[ss.stage].assign(ss.ops);
    firstRecord[ss.stage] = static_cast<int>(step.ops.size());
    for (int i : ss.ops) {
      const auto& o = pl.stages[ss.stage].ops.ops[i];
      step.ops.push_back({o.op, ss.stage, local, o.start, o.end, costs.idealOf(o.op)});
    }
  }
  const std::span<const int> transfers = in.transfersByStep[view.index];
  const auto transfer = [&](size_t k) -> TransferRecord {
    const Transfer& t = pl.transfers[static_cast<size_t>(transfers[k])];
    const auto& send = pl.stages[t.fromStage].ops.comms[t.send];
    const auto& recv = pl.stages[t.toStage].ops.comms[t.recv];
    return {send.pass,  send.mb,  t.fromStage, t.toStage, local,
            send.start, send.end, recv.start,  recv.end};
  };
  // Recorded where every gap is kept (a summary reads a step's transfers only for its causes).
  if (in.everySentence) {
    step.transfers.reserve(transfers.size());
    for (size_t k = 0; k < transfers.size(); ++k) step.transfers.push_back(transfer(k));
  }
  const Links links(transfers.size(), transfer);
  std::map<CauseId, TimeNs> idleInStep;  // the avoidable idle of each cause's gaps
  // One stage's gaps at a time, in this thread's lists (their room kept).
  thread_local std::vector<Gap> stageGaps;
  thread_local std::vector<BlameWords> stageWords;
  for (int s = 0; s < pl.p; ++s) {
    const DpWait* dp = in.dpWaits ? in.dpWaits->at(view.number, s) : nullptr;
    stageGaps.clear();
    stageWords.clear();
    step.splits.push_back(classifyStageStep(pl, view, s, sims, blame, stageGaps, stageWords, dp));
    for (size_t g = 0; g < stageGaps.size(); ++g) {
      Gap& gap = stageGaps[g];
      const OpRecord* next = nullptr;
      if (gap.nextOp >= 0) {
        const int pos = posOf[s].at(gap.nextOp);
        gap.nextOp = pos < 0 ? -1 : firstRecord[s] + pos;
        if (pos >= 0) next = &step.ops[static_cast<size_t>(gap.nextOp)];
      }
      const std::optional<CauseId> cause = causeOf(gap, links, in.imbalancedStage);
      if (cause) idleInStep[*cause] += avoidableIdle(gap);
      if (fold != nullptr) {
        (*fold)(gap, stageWords[g], cause, next);
        continue;
      }
      if (in.everySentence) {
        gap.blame.text = gapSentence(gap, stageWords[g], pl);
      } else {
        step.words.push_back(stageWords[g]);
      }
      step.gaps.push_back(std::move(gap));
      step.causeOfGap.push_back(cause);
    }
  }
  const StepReplay replay{.order = *prepared,
                          .costs = costs,
                          .opCosts = measuredCosts,
                          .measuredCosts = sims.ops,
                          .measured = step.measured,
                          .replayed = step.replayed};
  addStepWins(replay, idleInStep, step.wins);
  if (wantOrder && step.finished) step.order = std::move(order);
  return step;
}

}  // namespace bubblescope::analysis
