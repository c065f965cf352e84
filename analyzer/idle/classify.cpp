#include "analyzer/idle/classify.h"

#include <algorithm>

#include "analyzer/idle/gap_label.h"
#include "analyzer/idle/replay_gaps.h"

namespace bubblescope::analysis {
namespace {

int at(IdleClass c) {
  return static_cast<int>(c);
}

}  // namespace

IdleByClass fillLevels(TimeNs g, TimeNs ideal, TimeNs stageMeans, TimeNs measuredCosts,
                       IdleClass baseline, IdleClass stallKind) {
  const TimeNs l1 = std::min(g, std::max<TimeNs>(0, ideal));
  const TimeNs l2 = std::min(g, std::max(l1, stageMeans));
  const TimeNs l3 = std::min(g, std::max(l2, measuredCosts));
  IdleByClass out{};
  out[at(baseline)] += l1;
  out[at(IdleClass::Imbalance)] += l2 - l1;
  out[at(IdleClass::Jitter)] += l3 - l2;
  out[at(stallKind)] += g - l3;
  return out;
}

TimeNs chargeDpWait(Gap& gap, BlameWords& words, const DpWait& dp) {
  TimeNs left = dp.wait;
  for (IdleClass from : {IdleClass::OtherStall, IdleClass::HostStall}) {
    const TimeNs moved = std::min(left, gap.byClass[at(from)]);
    gap.byClass[at(from)] -= moved;
    gap.byClass[at(IdleClass::DpSync)] += moved;
    left -= moved;
  }
  const TimeNs charged = dp.wait - left;
  if (charged > 0 && largestClass(gap.byClass, gap.blame.cause) == IdleClass::DpSync) {
    gap.blame = Blame{};
    gap.blame.cause = IdleClass::DpSync;
    gap.blame.stage = gap.stage;
    words = BlameWords{};
    words.form = BlameForm::DpSync;
    words.dpReplica = dp.lastDp;
    words.took = dp.wait;
  }
  return charged;
}

Split classifyStageStep(const PipelineTrace& pl, const StepView& step, int stage,
                        const StepSims& sims, const BlameWalker& blame, std::vector<Gap>& gaps,
                        std::vector<BlameWords>& words, const DpWait* dpWait) {
  const StageStep& ss = step.stages[stage];
  const auto& ops = pl.stages[stage].ops.ops;
  Split split;
  split.span = step.end - step.start;
  split.compute = ss.compute;
  split.exposedComm = ss.exposedComm;
  split.otherBusy = ss.otherBusy;
  split.idle = split.span - split.compute - split.exposedComm - split.otherBusy;

  // Phases of the stage's step: warm-up until its first backward, drain after its last forward
  // (the cool-down), steady between. A gap the ideal schedule also has is a bubble of its phase.
  const int n = static_cast<int>(ss.ops.size());
  int firstBackward = n, lastForward = -1;
  for (int pos = 0; pos < n; ++pos) {
    const OpKind k = ops[ss.ops[pos]].op.kind;
    if (k == OpKind::F) lastForward = pos;
    if (k != OpKind::F && firstBackward == n) firstBackward = pos;
  }

  TimeNs windowIdle = 0;
  ReplayGaps ideal(sims.ideal, stage), stageMeans(sims.stage, stage), measured(sims.ops, stage);
  forEachWindow(ss, ops, step.start, step.end, [&](int pos, TimeNs from, TimeNs to) {
    const bool drain = pos == n;
    const TimeNs g = ss.idleBefore[static_cast<size_t>(pos)];
    windowIdle += g;
    if (g <= 0) return;

    const IdleClass baseline = pos <= firstBackward && !drain ? IdleClass::Warmup
                               : pos > lastForward            ? IdleClass::Drain
                                                              : IdleClass::ScheduleBubble;
    Gap gap;
    gap.stage = stage;
    gap.step = step.index;
    gap.start = from;
    gap.end = to;
    gap.idle = g;
    gap.nextOp = drain ? -1 : ss.ops[pos];
    Blamed walked = drain ? blame.drainOf(stage) : blame.startOf(stage, pos, baseline);
    gap.blame = std::move(walked.blame);
    IdleClass stallKind = IdleClass::OtherStall;
    if (isStall(gap.blame.cause)) {
      stallKind = gap.blame.cause;
    } else if (gap.blame.stallPassed) {
      stallKind = *gap.blame.stallPassed;
    } else if (blame.hostBusy(stage, from, to) * 2 >= g) {
      stallKind = IdleClass::HostStall;
    }
    gap.byClass = fillLevels(g, ideal.before(pos), stageMeans.before(pos), measured.before(pos),
                             baseline, stallKind);
    if (drain && dpWait != nullptr && dpWait->wait > 0) chargeDpWait(gap, walked.words, *dpWait);
    labelGap(gap, walked.words,
             stallKind == IdleClass::HostStall && !isStall(gap.blame.cause)
                 ? blame.hostNameDuring(stage, from, to)
                 : -1);
    for (int c = 0; c < kIdleClasses; ++c) split.idleByClass[c] += gap.byClass[c];
    gaps.push_back(std::move(gap));
    words.push_back(walked.words);
  });
  // Idle inside an op's own span (between its kernels): the host did not keep the device fed.
  split.idleByClass[at(IdleClass::HostStall)] += split.idle - windowIdle;
  return split;
}

}  // namespace bubblescope::analysis
