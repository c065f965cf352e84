#include "analyzer/pipeline_analysis.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "analyzer/idle/comm_waits.h"
#include "analyzer/idle/gap_sentence.h"
#include "analyzer/idle/root_causes.h"
#include "analyzer/idle/scenarios.h"
#include "analyzer/pipeline_step.h"
#include "analyzer/result/buckets.h"
#include "analyzer/result/errors.h"
#include "analyzer/result/idle_tally.h"
#include "analyzer/result/stats.h"
#include "analyzer/timeline/kept_room.h"
#include "analyzer/timeline/step_view.h"
#include "analyzer/whatif/pipeline_culprit.h"
#include "analyzer/whatif/schedule_match.h"
#include "analyzer/whatif/what_if.h"
#include "traces/parallel/parallel_for.h"
#include "traces/parallel/worker_pool.h"

namespace bubblescope::analysis {
namespace {

int kindIndex(OpKind k) {
  return static_cast<int>(k);
}

// The records (ops and gaps, a gap ~340 bytes with its sentence) the steps analysed side by side
// hold at most: a few MB.
constexpr size_t kRecordsInFlight = 1 << 14;

// Per step, the measured step time and the simulated ones (each with the measured tail), and per
// stage the step time when only that stage keeps its measured costs.
struct StepTimes {
  std::vector<TimeNs> measured, ideal, stage, ops;
  std::vector<std::vector<TimeNs>> onlyStage;
  std::vector<bool> onlyStageBounded;  // per stage: some step's figure bounded, not replayed
  // The model's check: each step re-run with its measured op costs and its own measured tail,
  // and the op the replay starts latest against when it ran.
  std::vector<TimeNs> replayed;
  TimeNs latest = 0;
  std::string latestOp;
  // Per step, whether it finished: every microbatch it holds ran all its passes on every stage.
  // The what-ifs compare finished steps only; a hang or the capture's end cuts the others.
  std::vector<uint8_t> finished;
  std::optional<engine::Schedule> firstFinished;  // its order, set once the steps are done
  std::string firstUnfinished;                    // "step 3: B4 of virtual stage 1 ... never runs"
};

// Where a step's op records go and what every one recorded adds up to: a summary's analysis keeps
// none past its step (at 40,000 steps they were a tenth of the peak), so the stages' mean costs
// and the root causes' cost ratios are summed op by op. `base`: the index among every op record of
// the pipeline that PipelineResult::ops[0] has (Gap::nextOp counts from the first).
struct OpLedger {
  int base = 0;
  std::vector<std::array<std::pair<TimeNs, int64_t>, 4>> byKind;  // per stage: cost sum, count
  StageCosts vsIdeal;

  explicit OpLedger(int stages) : byKind(static_cast<size_t>(stages)) {}
  void add(const OpRecord& o) {
    auto& [sum, n] = byKind[static_cast<size_t>(o.stage)][kindIndex(o.op.kind)];
    sum += o.end - o.start;
    n += 1;
    vsIdeal.add(o);
  }
};

// Each gap's root cause (parallel to PipelineResult::gaps) and what removing each cause wins,
// summed over the steps so far.
struct CauseTally {
  int imbalancedStage = -1;  // where imbalance the walk found no op for goes (mostImbalancedStage)
  std::vector<std::optional<CauseId>> ofGap;
  std::map<CauseId, TimeNs> wins;
};

// Each common step's transfers (by index into pl.transferSends), by the step their receive is in:
// found once, so that a step costs what it holds (10^5 steps: a scan of every transfer per step
// is quadratic, issue 28).
Buckets transfersByStepOf(const PipelineTrace& pl) {
  std::vector<std::vector<int>> commonOf(pl.p);  // per stage: its step index -> common step
  for (int s = 0; s < pl.p; ++s) {
    commonOf[s].assign(pl.stages[s].ops.steps.size(), -1);
    for (size_t k = 0; k < pl.stepNumbers.size(); ++k) {
      const int local = pl.stepIndex[s][k];
      if (local >= 0) commonOf[s][static_cast<size_t>(local)] = static_cast<int>(k);
    }
  }
  return Buckets::of(pl.stepNumbers.size(), pl.transferCount(), [&](size_t i) -> int64_t {
    const Transfer t = pl.transfer(i);
    const int local = pl.stages[t.toStage].ops.comms[t.recv].step;
    if (local < 0 || static_cast<size_t>(local) >= commonOf[t.toStage].size()) return -1;
    return commonOf[t.toStage][static_cast<size_t>(local)];
  });
}

// Empties `v` and returns its memory (`v = {}` and clear() keep it).
template <typename T>
void letGo(std::vector<T>& v) {
  std::vector<T>().swap(v);
}

// Moves `from`'s items to the end of `to`; into an empty `to` too small for them, the vector itself
// (a summary's records are one step's at a time: not held twice while they are moved).
template <typename T>
void appendAll(std::vector<T>& to, std::vector<T>&& from) {
  if (to.empty() && to.capacity() < from.size()) {
    to = std::move(from);
    return;
  }
  to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
  letGo(from);
}

// Where the next step committed puts its records among the pipeline's: its index among the
// analysed steps, and its first op record's among every record.
struct StepPlace {
  int step = 0, firstRecord = 0;
  StepPlace(const PipelineResult& out, const OpLedger& ledger)
      : step(static_cast<int>(out.steps.size())),
        firstRecord(ledger.base + static_cast<int>(out.ops.size())) {}
  // A gap of the step, which named its step by the common step and the op that ended it by its
  // place among the step's records, named as the pipeline's.
  void place(Gap& gap) const {
    gap.step = step;
    if (gap.nextOp >= 0) gap.nextOp += firstRecord;
  }
};

// Appends an analysed step to the pipeline's result, as the next of its steps: its records take
// their step index and their ops' index among every record.
void commitStep(StepOutcome&& step, PipelineResult& out, StepTimes& times, CauseTally& causes,
                OpLedger& ledger) {
  const StepPlace at(out, ledger);
  const int stepIndex = at.step;
  out.steps.push_back(step.info);
  times.measured.push_back(step.measured);
  times.ideal.push_back(step.ideal);
  times.stage.push_back(step.stage);
  times.ops.push_back(step.replayedOps);
  times.replayed.push_back(step.replayed);
  if (step.latest > times.latest) {
    times.latest = step.latest;
    times.latestOp = std::move(step.latestOp);
  }
  times.finished.push_back(step.finished);
  if (!step.finished && times.firstUnfinished.empty()) {
    times.firstUnfinished = std::move(step.unfinished);
  }
  for (size_t s = 0; s < step.alone.size(); ++s) {
    times.onlyStage[s].push_back(step.alone[s].makespan + out.tailMedian);
    times.onlyStageBounded[s] = times.onlyStageBounded[s] || !step.alone[s].replayed;
  }
  for (size_t s = 0; s < step.splits.size(); ++s) {
    out.stages[s].perStep.push_back(step.splits[s]);
    out.stages[s].total += step.splits[s];
    out.total += step.splits[s];
  }
  for (Gap& gap : step.gaps) at.place(gap);
  for (OpRecord& o : step.ops) {
    o.step = stepIndex;
    ledger.add(o);
  }
  for (TransferRecord& t : step.transfers) t.step = stepIndex;
  appendAll(out.gaps, std::move(step.gaps));
  appendAll(out.ops, std::move(step.ops));
  appendAll(out.transfers, std::move(step.transfers));
  appendAll(causes.ofGap, std::move(step.causeOfGap));
  for (const auto& [id, win] : step.wins) causes.wins[id] += win;
}

// A first step far slower than the rest is usually warm-up (allocation, connection setup), not
// the steady state people tune for: say so, and how to leave it out.
void warnSlowFirstStep(const std::vector<TimeNs>& measured, const std::vector<StepInfo>& steps,
                       std::vector<std::string>& warnings) {
  if (measured.size() < 3) return;
  const TimeNs rest = median(std::vector<TimeNs>(measured.begin() + 1, measured.end()));
  if (rest > 0 && measured[0] * 10 > rest * 13) {
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.1fx", double(measured[0]) / double(rest));
    warnings.push_back("step " + std::to_string(steps[0].number) + " took " + ratio +
                       " the median step (a warm-up step?); --steps " +
                       std::to_string(steps[1].number) + ": leaves it out");
  }
}

// The step times and slowdowns over the analysed steps, and each stage's mean op cost per kind.
void summarize(const PipelineTrace& pl, const StepTimes& times, const OpLedger& ledger,
               PipelineResult& out) {
  out.stepTimeMeasured = mean(times.measured);
  out.stepTimeIdeal = mean(times.ideal);
  out.stepTimeStage = mean(times.stage);
  out.stepTimeOps = mean(times.ops);
  out.slowdown = out.stepTimeIdeal > 0 ? static_cast<double>(out.stepTimeMeasured) /
                                             static_cast<double>(out.stepTimeIdeal)
                                       : 1.0;
  const auto& sums = ledger.byKind;
  for (int s = 0; s < pl.p; ++s) {
    auto& sr = out.stages[s];
    if (!times.onlyStage[s].empty() && out.stepTimeIdeal > 0) {
      sr.slowdown =
          static_cast<double>(mean(times.onlyStage[s])) / static_cast<double>(out.stepTimeIdeal);
      sr.slowdownBounded = times.onlyStageBounded[s];
    }
    for (int k = 0; k < 4; ++k) {
      const auto& [sum, n] = sums[s][k];
      sr.meanCost[k] = n ? sum / n : 0;
    }
  }
}

// The mean over the finished steps.
TimeNs meanOfFinished(const std::vector<TimeNs>& perStep, const std::vector<uint8_t>& finished) {
  std::vector<TimeNs> kept;
  for (size_t i = 0; i < perStep.size(); ++i) {
    if (finished[i]) kept.push_back(perStep[i]);
  }
  return mean(kept);
}

// The what-if table over the finished steps; withheld, saying why, when none finished.
void whatIfs(const PipelineTrace& pl, const StepTimes& times, const MeanCosts& costs,
             PipelineResult& out, std::vector<std::string>& warnings) {
  if (!times.firstFinished) {
    out.whatIfWithheld = "no step finished (" + times.firstUnfinished +
                         "): a run that hung or was cut short has no step to compare a schedule "
                         "with";
    return;
  }
  const size_t finished =
      static_cast<size_t>(std::count(times.finished.begin(), times.finished.end(), uint8_t{1}));
  if (finished < times.finished.size()) {
    warnings.push_back(std::to_string(times.finished.size() - finished) +
                       " step(s) did not finish (" + times.firstUnfinished +
                       "): the what-ifs compare the " + std::to_string(finished) + " that did");
  }
  WhatIfInput in;
  in.p = pl.p;
  in.m = times.firstFinished->m;
  in.schedule = out.schedule;
  in.observed = *times.firstFinished;
  in.costs = costs;
  in.measuredStep = meanOfFinished(times.measured, times.finished);
  in.idealStep = meanOfFinished(times.ideal, times.finished);
  in.tail = out.tailMedian;
  in.transfer = out.transferMedian;
  out.whatIf = whatIfTable(in);
  for (WhatIf& w : out.whatIf) w.trusted = out.model.reproduces;
}

}  // namespace

namespace {

// The gaps a user should look at first, picked as the gaps are offered in order: the largest
// avoidable idle (ties: the largest idle, then the first offered), at most five, none that a
// better balance or schedule would not shorten (under kLeastListedGap).
class TopGapPicker {
 public:
  // Whether the gap is among the top so far; `evicted` is then the index it pushed out, or -1.
  bool offer(int index, const Gap& gap, int& evicted) {
    evicted = -1;
    const TimeNs avoidable = avoidableIdle(gap);
    if (avoidable < kLeastListedGap) return false;
    const auto at = std::upper_bound(top_.begin(), top_.end(), Entry{index, avoidable, gap.idle},
                                     [](const Entry& a, const Entry& b) {
                                       return a.avoidable != b.avoidable ? a.avoidable > b.avoidable
                                                                         : a.idle > b.idle;
                                     });
    if (at - top_.begin() >= kMost) return false;
    top_.insert(at, Entry{index, avoidable, gap.idle});
    if (top_.size() > kMost) {
      evicted = top_.back().index;
      top_.pop_back();
    }
    return true;
  }
  std::vector<int> indexes() const {
    std::vector<int> out;
    for (const Entry& e : top_) out.push_back(e.index);
    return out;
  }

 private:
  static constexpr std::ptrdiff_t kMost = 5;
  struct Entry {
    int index;
    TimeNs avoidable, idle;
  };
  std::vector<Entry> top_;
};

}  // namespace

std::vector<int> topGapsOf(const std::vector<Gap>& gaps) {
  TopGapPicker picker;
  int evicted = -1;
  for (size_t i = 0; i < gaps.size(); ++i) picker.offer(static_cast<int>(i), gaps[i], evicted);
  return picker.indexes();
}

namespace {

// What the first pass over the steps gathers, one view at a time: the mean costs, the transfer
// lags and tails behind the ideal, and how many records the steps will append.
struct StepSums {
  CostTally costs;
  LinkLags lags;
  std::vector<TimeNs> tails;
  size_t ops = 0, gaps = 0;
  explicit StepSums(int stages) : costs(stages) {}
};

// The first pass over steps [from, to), into `sums`.
void sumSteps(const PipelineTrace& pl, const StepViews& views, size_t from, size_t to,
              StepSums& sums) {
  StepView view;  // each step built into the last one's lists
  for (size_t k = from; k < to; ++k) {
    views.build(k, view);
    sums.costs.add(pl, view);
    addTransferLags(pl, view, sums.lags);
    sums.tails.push_back(tailOf(pl, view));
    sums.ops += view.opCount();
    sums.gaps += view.opCount() + view.stages.size();
  }
}

// The first pass over every step, `threads` stretches of steps at a time, each summed apart and
// added to the whole in step order: sums of integers and medians of values, the same whatever the
// stretches.
StepSums sumSteps(const PipelineTrace& pl, const StepViews& views, unsigned threads) {
  StepSums sums(pl.p);
  const size_t stretches = threads <= 1 ? 1 : std::min<size_t>(views.size(), 4 * threads);
  if (stretches <= 1) {
    sumSteps(pl, views, 0, views.size(), sums);
    return sums;
  }
  std::vector<StepSums> parts(stretches, StepSums(pl.p));
  traces::parallelFor(stretches, threads, [&](size_t i) {
    sumSteps(pl, views, views.size() * i / stretches, views.size() * (i + 1) / stretches, parts[i]);
  });
  for (StepSums& part : parts) {
    sums.costs.add(part.costs);
    for (auto& [link, lags] : part.lags) {
      auto& all = sums.lags[link];
      all.insert(all.end(), lags.begin(), lags.end());
      letGo(lags);
    }
    sums.tails.insert(sums.tails.end(), part.tails.begin(), part.tails.end());
    sums.ops += part.ops;
    sums.gaps += part.gaps;
    part = StepSums(0);
  }
  return sums;
}

// A summary's analysis folds each step's gaps as soon as they are classified and keeps none of
// them whole but the few its reports list (PipelineResult::gapIndex): every gap a Bubble for the
// inventory, its stall pieces for the culprit, its root cause's counts, and copies of the top gaps
// and of each cause's largest own and knock-on gaps. At 20,000 steps the gaps were a third of the
// peak (184 bytes each, 9 a step). Only a copy kept has its sentence written: at 10,000 stages
// the sentences of a step's gaps were the largest item of the peak.
struct FoldedGaps {
  RootCauseTally causes{1, kKnockOnsNamed};
  StallCosts stalls;
  TopGapPicker top;
  std::map<int, Gap> topGaps;  // the top gaps so far, whole, by index
  int gaps = 0;                // gaps folded: the next one's index among every gap
  // Without every record kept (the memory look reads every op and bubble, the inference check
  // every op): the ops that gaps kept whole end with, by index among every op record; those no
  // kept gap names any more are let go when there are twice as many as at the last look (64 at
  // least).
  bool everyRecord = true;
  std::map<int, OpRecord> namedOps;
  size_t lookAt = 64;

  // One gap, its step committed as the `steps`-th (its `step` and `nextOp` the pipeline's:
  // commitStep's), with the words of its sentence, its root cause and the record of the op that
  // ended it (null: a drain). Kept whole, its sentence written, only while it is among the
  // largest (top, causes).
  void add(const PipelineTrace& pl, PipelineResult& out, size_t steps, const Gap& gap,
           const BlameWords& words, const std::optional<CauseId>& cause, const OpRecord* next) {
    std::string sentence;
    const auto write = [&](Gap& copy) {
      if (sentence.empty()) sentence = gapSentence(gap, words, pl);
      copy.blame.text = sentence;
    };
    const int index = gaps++;
    if (everyRecord) {
      out.bubbles.push_back({gap.stage, gap.step, gap.start, gap.end, gap.idle, gap.freeMemory});
    } else {
      addBubble(out.bubbleTallies, steps, gap.stage, gap.step, gap.idle, gap.freeMemory);
    }
    stalls.add(gap);
    bool kept = false;
    if (int evicted = -1; top.offer(index, gap, evicted)) {
      write(topGaps.emplace(index, gap).first->second);
      topGaps.erase(evicted);
      kept = true;
    }
    if (cause) {
      if (Gap* copy = causes.add(index, gap, *cause, next ? &next->op : nullptr)) {
        write(*copy);
        kept = true;
      }
    }
    if (kept && next && !everyRecord) namedOps.emplace(gap.nextOp, *next);
  }

  // The step's gaps, the last appended to out.gaps (with their causes and `words`, the words of
  // their sentences), folded and let go, as are, without every record kept, its op records (and
  // its gaps are tallied for the inventory, not kept as bubbles). A summary records no transfer.
  void fold(const PipelineTrace& pl, PipelineResult& out, CauseTally& tally, OpLedger& ledger,
            std::vector<BlameWords>& words) {
    for (size_t g = 0; g < out.gaps.size(); ++g) {
      const Gap& gap = out.gaps[g];
      const OpRecord* next =
          gap.nextOp >= 0 ? &out.ops[static_cast<size_t>(gap.nextOp - ledger.base)] : nullptr;
      add(pl, out, out.steps.size(), gap, words.at(g), tally.ofGap.at(g), next);
    }
    // Let go, not cleared: the next step brings its own (commitStep).
    letGo(out.gaps);
    letGo(words);
    letGo(tally.ofGap);
    if (!everyRecord) {
      ledger.base += static_cast<int>(out.ops.size());
      letGo(out.ops);
      letGoUnnamedOps();
    }
  }

  // The root causes and top gaps, and in out.gaps the gaps they list, in gap order, indexed
  // anew (out.gapIndex says which each was); without every op kept, in out.ops the ops they
  // end with, in op order (out.opIndex says which each was).
  void keepListed(const CauseTally& tally, const OpLedger& ledger, PipelineResult& out) {
    std::map<int, Gap> kept;
    out.rootCauses = causes.finish(ledger.vsIdeal, tally.wins, kept);
    kept.merge(topGaps);
    std::map<int, int> at;
    // Sized once: 10,000 replicas' results are held at once, and growth slack was a tenth of them.
    out.gaps.reserve(out.gaps.size() + kept.size());
    out.gapIndex.reserve(out.gapIndex.size() + kept.size());
    for (auto& [index, gap] : kept) {
      at[index] = static_cast<int>(out.gaps.size());
      out.gapIndex.push_back(index);
      out.gaps.push_back(std::move(gap));
    }
    for (int g : top.indexes()) out.topGaps.push_back(at[g]);
    for (RootCause& rc : out.rootCauses) {
      for (int& g : rc.own) g = at[g];
      for (int& g : rc.knockOns) g = at[g];
    }
    if (everyRecord) return;
    std::set<int> named;
    for (const Gap& g : out.gaps) {
      if (g.nextOp >= 0) named.insert(g.nextOp);
    }
    out.ops.clear();
    for (int index : named) {
      out.opIndex.push_back(index);
      out.ops.push_back(namedOps.at(index));
    }
  }

 private:
  void letGoUnnamedOps() {
    if (namedOps.size() < lookAt) return;
    std::set<int> named;
    for (const auto& [index, gap] : topGaps) {
      if (gap.nextOp >= 0) named.insert(gap.nextOp);
    }
    causes.forEachKept([&](const Gap& gap) {
      if (gap.nextOp >= 0) named.insert(gap.nextOp);
    });
    std::erase_if(namedOps, [&](const auto& entry) { return !named.contains(entry.first); });
    lookAt = std::max<size_t>(64, 2 * namedOps.size());
  }
};

// The records every step appends to, sized once from what the steps hold: a vector that grows by
// doubling holds up to twice its records and, while it moves, both copies (at 10,000 steps the
// gaps alone went from 15 to 24 MB, and the peak was such a move). A stage's step has at most
// one gap before each op and one after the last. A summary records no transfer, and its ops,
// unless every one is kept, are one step's at a time.
void reserveRecords(const StepSums& sums, const Buckets& transfersByStep, KeptGaps kept,
                    bool everyRecord, PipelineResult& out, CauseTally& causes) {
  if (everyRecord) out.ops.reserve(sums.ops);
  if (kept == KeptGaps::All) {
    out.transfers.reserve(transfersByStep.items());
    out.gaps.reserve(sums.gaps);
    causes.ofGap.reserve(sums.gaps);
  } else if (everyRecord) {
    out.bubbles.reserve(sums.gaps);
  } else {
    out.bubbleTallies.resize(out.stages.size());
  }
  out.steps.reserve(transfersByStep.size());
  for (StageResult& st : out.stages) st.perStep.reserve(transfersByStep.size());
}

}  // namespace

PipelineResult analyzePipeline(const PipelineTrace& pl, std::vector<std::string>& warnings,
                               const DpWaits* dpWaits, KeptGaps kept, bool everyRecord,
                               unsigned threads, bool idealStep) {
  PipelineResult out;
  out.dpRank = pl.dpRank;
  // Two passes over the steps, each building one step's view at a time and letting it go (at
  // 20,000 steps every view held at once was a fifth of the peak): the first for the means the
  // second measures against. The first step's view stays for observedSchedule below.
  auto builder = std::make_unique<const StepViews>(pl);
  const StepViews& views = *builder;
  if (views.size() == 0) {
    throw AnalysisInputError("pipeline " + std::to_string(pl.dpRank) +
                             ": no step has ops on every stage, so there is nothing to compare");
  }
  // Steps are analysed `threads` at a time (each pass), as many in flight as hold
  // kRecordsInFlight records between them (a record per op and per gap: at most one gap before
  // each op of a stage and one after its last); one at a time where two would hold more (a step
  // of 10,000 stages holds ~90,000 records, ~20 MB with the gaps' sentences).
  size_t opsInSteps = 0;
  for (const StageTrace& st : pl.stages) opsInSteps += st.ops.ops.size();
  const size_t recordsPerStep =
      std::max<size_t>(1, (2 * opsInSteps + pl.stages.size() * views.size()) / views.size());
  const size_t fits = std::min<size_t>(kRecordsInFlight / recordsPerStep, 256);
  const unsigned stepThreads = fits < 2 ? 1 : threads;
  const size_t batch = stepThreads <= 1 ? 1 : fits;
  StepSums sums = sumSteps(pl, views, stepThreads);
  const MeanCosts costs = sums.costs.means();
  out.transferMedian = healthyTransfer(sums.lags);
  out.tailMedian = median(sums.tails);
  sums.lags.clear();
  sums.costs = CostTally(0);  // a map a stage, read no more (10,000 stages: 1.4 MB)

  out.stages.resize(pl.p);
  for (int s = 0; s < pl.p; ++s) {
    auto& sr = out.stages[s];
    sr.stage = s;
    for (size_t r : pl.stages[s].ranks) sr.ranks.push_back(static_cast<int>(r));
    sr.rank = sr.ranks.front();
  }

  StepTimes times;
  times.onlyStage.resize(pl.p);
  times.onlyStageBounded.assign(pl.p, false);
  CauseTally causes;
  causes.imbalancedStage = mostImbalancedStage(costs);
  std::string firstRefusal;  // the simulator's reason for the first step it could not re-run
  const Buckets transfersByStep = transfersByStepOf(pl);
  // Kept whole, every gap keeps every op it names.
  everyRecord = everyRecord || kept == KeptGaps::All;
  reserveRecords(sums, transfersByStep, kept, everyRecord, out, causes);
  OpLedger ledger(pl.p);
  std::optional<FoldedGaps> folded;
  if (kept == KeptGaps::Listed) {
    folded.emplace();
    folded->everyRecord = everyRecord;
  }
  const StepInputs in{pl,
                      costs,
                      dpWaits,
                      transfersByStep,
                      out.transferMedian,
                      out.tailMedian,
                      causes.imbalancedStage,
                      kept == KeptGaps::All};
  std::vector<StepOutcome> analysed;
  std::optional<size_t> firstCommitted, firstFinished;  // their common steps
  // The batches' threads kept from one batch to the next: started anew for each, a thread's
  // start and end (its malloc arena and caches set up and flushed) cost about as much as its
  // share of a batch of small steps, and on 10^6 steps the caller analysed most of each alone.
  traces::WorkerPool pool(stepThreads);
  for (size_t k = 0; k < views.size(); k += analysed.size()) {
    analysed.assign(std::min(batch, views.size() - k), StepOutcome{});
    // A step at a time, a summary's gaps are folded as each stage is classified, placed as
    // the step's commit (commitStep) places them: the step is the next committed.
    const StepPlace at(out, ledger);
    // Without every record kept, its op records too: each is tallied and let go, as the
    // step's commit and fold would.
    StepFolder foldNow;
    foldNow.gap = [&](Gap& gap, const BlameWords& words, const std::optional<CauseId>& cause,
                      const OpRecord* next) {
      at.place(gap);
      std::optional<OpRecord> record;
      if (next != nullptr) record.emplace(*next).step = at.step;
      folded->add(pl, out, static_cast<size_t>(at.step) + 1, gap, words, cause,
                  record ? &*record : nullptr);
    };
    if (!everyRecord) {
      foldNow.op = [&](const OpRecord& record) {
        OpRecord o = record;
        o.step = at.step;
        ledger.add(o);
        ++ledger.base;
      };
    }
    const StepFolder* fold = folded && analysed.size() == 1 ? &foldNow : nullptr;
    auto analyze = [&](size_t i) {
      // Each thread builds its steps into one view (StepViews::build); it keeps a step's room.
      thread_local StepView view;
      views.build(k + i, view);
      analysed[i] = analyzeStep(in, view, fold);
      letGoIfLarge(view, view.opCount());
    };
    pool.run(analysed.size(), analyze);
    for (size_t i = 0; i < analysed.size(); ++i) {
      StepOutcome& step = analysed[i];
      if (step.refused.empty()) {
        if (!firstCommitted) firstCommitted = k + i;
        if (!firstFinished && step.finished) firstFinished = k + i;
        std::vector<BlameWords> words = std::move(step.words);
        commitStep(std::move(step), out, times, causes, ledger);
        if (folded) folded->fold(pl, out, causes, ledger, words);
        continue;
      }
      const std::string number = std::to_string(step.info.number);
      warnings.push_back("step " + number + ": its op order cannot be re-run by the simulator (" +
                         step.refused + "; a partial capture?); left out");
      if (firstRefusal.empty()) firstRefusal = "step " + number + ": " + step.refused;
    }
  }
  // A step whose splits took more than the room reserved grew its stages' series by doubling:
  // 10,000 stages' held 1.8 MB they did not use under what follows the steps (issue 28).
  for (StageResult& st : out.stages) st.perStep.shrinkToFit();
  if (out.steps.empty()) {
    throw AnalysisInputError("pipeline " + std::to_string(pl.dpRank) +
                             ": no step could be re-run by the simulator (" + firstRefusal + ")");
  }
  // The schedule is read off the first finished step: one cut short matches no generator. With
  // none, off the first step. Its order is built again here rather than kept from its analysis
  // (10,000 stages: 2 MB under every later step's peak), as its view was (6% of the peak).
  std::optional<engine::Schedule> cutShort;
  {
    StepView first;
    views.build(firstFinished.value_or(0), first);
    (firstFinished ? times.firstFinished : cutShort) = observedSchedule(pl, first);
  }
  if (idealStep) {
    StepView first;
    views.build(*firstCommitted, first);
    // Most often the step the schedule was read off: its order is not made twice (2 MB of
    // 10,000 stages at the analysis' peak).
    const bool sameStep = firstFinished == firstCommitted && times.firstFinished;
    out.idealOps = idealStepOps(in, first, 0, sameStep ? &*times.firstFinished : nullptr);
  }
  builder.reset();  // its lookups, sized by the run's ops and comms
  warnSlowFirstStep(times.measured, out.steps, warnings);
  summarize(pl, times, ledger, out);
  if (folded) {
    folded->keepListed(causes, ledger, out);
  } else {
    out.commWaits = commWaitsOf(pl, out.gaps);
    out.topGaps = topGapsOf(out.gaps);
    out.rootCauses = groupRootCauses(out.gaps, causes.ofGap, out.ops, causes.wins);
  }
  out.model = checkModel(mean(times.measured), mean(times.replayed), times.latestOp);

  out.schedule = detectSchedule(times.firstFinished ? *times.firstFinished : *cutShort);
  whatIfs(pl, times, costs, out, warnings);
  const PipelineCulprit culprit =
      folded ? pipelineCulprit(out, folded->stalls) : pipelineCulprit(out);
  out.culprit = culprit.text;
  out.culpritStage = culprit.stage;
  out.culpritGain = culprit.gain;
  for (const auto& w : pl.warnings) warnings.push_back(w);
  return out;
}

}  // namespace bubblescope::analysis
