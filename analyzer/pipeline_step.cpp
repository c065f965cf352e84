#include "analyzer/pipeline_step.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <utility>

#include "analyzer/idle/blame.h"
#include "analyzer/idle/classify.h"
#include "analyzer/idle/gap_sentence.h"
#include "analyzer/timeline/kept_room.h"
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

// Lets go of the costs' hold on a view's posting as the step's analysis ends, however it ends:
// the costs outlive the step (their room is kept for the next), the view need not.
struct PostingHeld {
  std::array<engine::SimCosts*, 3> costs;
  ~PostingHeld() {
    for (engine::SimCosts* c : costs) c->posting.reset();
  }
};

}  // namespace

StepOutcome analyzeStep(const StepInputs& in, const StepView& view, const StepFolder* fold) {
  const PipelineTrace& pl = in.pl;
  const MeanCosts& costs = in.costs;
  StepOutcome step;
  step.info.number = view.number;
  engine::Schedule order = observedSchedule(pl, view);
  // One order, checked and made a DAG once, replayed under each cost model (and once per stage).
  std::optional<engine::PreparedSchedule> prepared;
  // The costs and replays in this thread's lists, whose room is kept from step to step: made
  // anew for each of a run's steps, they were a tenth of a 10^6-step analysis (issue 28).
  // The three share the step's posting, read where the view holds it (the view outlives the
  // step's analysis).
  thread_local engine::SimCosts idealCosts, stageCosts, measuredCosts;
  thread_local StepSims sims;
  const std::shared_ptr<const engine::Posting> posting = viewedPosting(view);
  const PostingHeld held{{&idealCosts, &stageCosts, &measuredCosts}};
  stepCosts(pl, view, costs, Scenario::Ideal, in.transferMedian, posting, idealCosts);
  stepCosts(pl, view, costs, Scenario::Ops, in.transferMedian, posting, measuredCosts);
  stepCosts(pl, view, costs, Scenario::Stage, in.transferMedian, posting, stageCosts);
  try {
    prepared.emplace(order);
    engine::simulate(*prepared, idealCosts, sims.ideal);
    engine::simulate(*prepared, stageCosts, sims.stage);
    engine::simulate(*prepared, measuredCosts, sims.ops);
    letGoIfLarge(stageCosts, view.opCount());  // read no more
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
  step.alone = stageAloneMakespans(*prepared, idealCosts, measuredCosts, sims.ideal.makespan);

  thread_local BlameWalker blame;  // its lists kept from step to step, as the replays
  blame.reset(pl, view, costs, in.transferMedian, sims.ops);
  // Sized once: a step of 10,000 stages holds ~90,000 records, and a vector grown by doubling
  // holds up to twice its records.
  const size_t opsInStep = view.opCount();
  step.splits.reserve(static_cast<size_t>(pl.p));
  if (fold == nullptr) {
    step.gaps.reserve(opsInStep + static_cast<size_t>(pl.p));  // one before each op, one after
    step.causeOfGap.reserve(step.gaps.capacity());
    if (!in.everySentence) step.words.reserve(step.gaps.capacity());
  }
  const bool foldOps = fold != nullptr && fold->op;
  if (!foldOps) step.ops.reserve(opsInStep);
  // The record of the op at `pos` of stage s's step.
  const auto recordAt = [&](int s, int pos) -> OpRecord {
    const auto& o = pl.stages[s].ops.ops[view.stages[s].ops[pos]];
    return {o.op, s, local, o.start, o.end, costs.idealOf(o.op)};
  };
  // The records first, as the gaps name the op that ended them by its place among the step's
  // records (its stage's first record and its position in the stage's step, as the walk looks
  // it up), and their causes read the step's transfers.
  std::vector<int> firstRecord(pl.p, 0);
  int records = 0;
  for (const StageStep& ss : view.stages) {
    firstRecord[ss.stage] = records;
    records += static_cast<int>(ss.ops.size());
    for (size_t j = 0; j < ss.ops.size(); ++j) {
      if (foldOps) {
        fold->op(recordAt(ss.stage, static_cast<int>(j)));
      } else {
        step.ops.push_back(recordAt(ss.stage, static_cast<int>(j)));
      }
    }
  }
  const Bucket transfers = in.transfersByStep[view.index];
  const auto transfer = [&](size_t k) -> TransferRecord {
    const Transfer t = pl.transfer(static_cast<size_t>(transfers[k]));
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
  OpRecord nextRecord;  // a folded step's: the record of the op that ended the gap
  for (int s = 0; s < pl.p; ++s) {
    const DpWait* dp = in.dpWaits ? in.dpWaits->at(view.number, s) : nullptr;
    stageGaps.clear();
    stageWords.clear();
    step.splits.push_back(classifyStageStep(pl, view, s, sims, blame, stageGaps, stageWords, dp));
    for (size_t g = 0; g < stageGaps.size(); ++g) {
      Gap& gap = stageGaps[g];
      const OpRecord* next = nullptr;
      if (gap.nextOp >= 0) {
        const int pos = blame.positionOf(s, gap.nextOp);
        gap.nextOp = pos < 0 ? -1 : firstRecord[s] + pos;
        if (pos >= 0 && foldOps) {
          nextRecord = recordAt(s, pos);
          next = &nextRecord;
        } else if (pos >= 0) {
          next = &step.ops[static_cast<size_t>(gap.nextOp)];
        }
      }
      const std::optional<CauseId> cause = causeOf(gap, links, in.imbalancedStage);
      if (cause) idleInStep[*cause] += avoidableIdle(gap);
      if (fold != nullptr) {
        fold->gap(gap, stageWords[g], cause, next);
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
  letGoIfLarge(blame, opsInStep);  // its walk is done
  // The ideal replay is read no more: each cause's replay is made in its room.
  const StepReplay replay{.order = *prepared,
                          .costs = costs,
                          .opCosts = measuredCosts,
                          .measuredCosts = sims.ops,
                          .scratch = sims.ideal,
                          .measured = step.measured,
                          .replayed = step.replayed};
  addStepWins(replay, idleInStep, step.wins);
  // Held to the next step, a large step's replays would lie under the peak of what follows the
  // steps (the what-ifs) as well.
  letGoIfLarge(sims, opsInStep);
  for (engine::SimCosts* c : {&idealCosts, &stageCosts, &measuredCosts})
    letGoIfLarge(*c, opsInStep);
  return step;
}

std::vector<OpRecord> idealStepOps(const StepInputs& in, const StepView& view, int stepIndex,
                                   const engine::Schedule* given) {
  const PipelineTrace& pl = in.pl;
  std::optional<engine::Schedule> made;
  if (given == nullptr) made = observedSchedule(pl, view);
  const engine::Schedule& order = given != nullptr ? *given : *made;
  engine::SimCosts idealCosts;
  stepCosts(pl, view, in.costs, Scenario::Ideal, in.transferMedian, viewedPosting(view),
            idealCosts);
  const engine::PreparedSchedule prepared(order);
  engine::SimResult ideal;
  engine::simulate(prepared, idealCosts, ideal);
  std::vector<OpRecord> ops;
  size_t n = 0;
  for (const auto& stage : order.stages) n += stage.size();
  ops.reserve(n);
  for (int s = 0; s < pl.p; ++s) {
    for (size_t j = 0; j < order.stages[s].size(); ++j) {
      const auto& t = ideal.stages[s].ops[j];
      ops.push_back(
          {order.stages[s][j], s, stepIndex, t.start, t.end, in.costs.idealOf(order.stages[s][j])});
    }
  }
  return ops;
}

}  // namespace bubblescope::analysis
