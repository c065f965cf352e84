#include "analyzer/pipeline_step.h"

#include <algorithm>
#include <cstdio>
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

// The causes of the step's gaps and what removing each wins in the step.
void tallyCauses(const StepReplay& replay, int imbalancedStage, StepOutcome& step) {
  const Links links(step.transfers);
  std::map<CauseId, TimeNs> idleInStep;
  step.causeOfGap.reserve(step.gaps.size());  // grown by doubling: 1.2 MB at 10,000 stages
  for (const Gap& gap : step.gaps) {
    step.causeOfGap.push_back(causeOf(gap, links, imbalancedStage));
    if (step.causeOfGap.back()) idleInStep[*step.causeOfGap.back()] += avoidableIdle(gap);
  }
  addStepWins(replay, idleInStep, step.wins);
}

}  // namespace

StepOutcome analyzeStep(const StepInputs& in, const StepView& view, bool wantOrder,
                        bool wantIdealOps) {
  const PipelineTrace& pl = in.pl;
  const MeanCosts& costs = in.costs;
  StepOutcome step;
  step.info.number = view.number;
  engine::Schedule order = observedSchedule(pl, view);
  // One order, checked and made a DAG once, replayed under each cost model (and once per stage).
  std::optional<engine::PreparedSchedule> prepared;
  // The costs and replays in this thread's lists, whose room is kept from step to step: made
  // anew for each of a run's steps, they were a tenth of a 10^6-step analysis (issue 28).
  thread_local engine::SimCosts idealCosts, stageCosts, measuredCosts;
  thread_local StepSims sims;
  stepCosts(pl, view, costs, Scenario::Ideal, in.transferMedian, idealCosts);
  stepCosts(pl, view, costs, Scenario::Ops, in.transferMedian, measuredCosts);
  stepCosts(pl, view, costs, Scenario::Stage, in.transferMedian, stageCosts);
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
  step.gaps.reserve(opsInStep + static_cast<size_t>(pl.p));  // one before each op, one after
  step.words.reserve(step.gaps.capacity());
  step.ops.reserve(opsInStep);
  step.transfers.reserve(in.transfersByStep[view.index].size());
  for (int s = 0; s < pl.p; ++s) {
    const DpWait* dp = in.dpWaits ? in.dpWaits->at(view.number, s) : nullptr;
    step.splits.push_back(classifyStageStep(pl, view, s, sims, blame, step.gaps, step.words, dp));
  }
  if (in.everySentence) {
    for (size_t g = 0; g < step.gaps.size(); ++g) {
      step.gaps[g].blame.text = gapSentence(step.gaps[g], step.words[g], pl);
    }
    std::vector<BlameWords>().swap(step.words);  // its room too
  }
  // Gaps name the op that ended them by its place among the step's records: its stage's first
  // record and its position in the stage's step.
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
  for (Gap& gap : step.gaps) {
    if (gap.nextOp < 0) continue;
    const int pos = posOf[gap.stage].at(gap.nextOp);
    gap.nextOp = pos < 0 ? -1 : firstRecord[gap.stage] + pos;
  }
  for (int ti : in.transfersByStep[view.index]) {
    const Transfer& t = pl.transfers[ti];
    const auto& send = pl.stages[t.fromStage].ops.comms[t.send];
    const auto& recv = pl.stages[t.toStage].ops.comms[t.recv];
    step.transfers.push_back({send.pass, send.mb, t.fromStage, t.toStage, local, send.start,
                              send.end, recv.start, recv.end});
  }
  const StepReplay replay{.pipeline = pl,
                          .step = view,
                          .order = order,
                          .costs = costs,
                          .transfer = in.transferMedian,
                          .measuredCosts = sims.ops,
                          .measured = step.measured,
                          .replayed = step.replayed};
  tallyCauses(replay, in.imbalancedStage, step);
  if (wantOrder && step.finished) step.order = std::move(order);
  return step;
}

}  // namespace bubblescope::analysis
