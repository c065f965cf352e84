#include "analyzer/whatif/pipeline_culprit.h"

#include <algorithm>
#include <map>

#include "analyzer/result/printed.h"

namespace bubblescope::analysis {
void StallCosts::add(const Gap& g) {
  for (IdleClass k : {IdleClass::CommStall, IdleClass::HostStall, IdleClass::OtherStall}) {
    const TimeNs piece = g.byClass[static_cast<int>(k)];
    if (piece <= 0) continue;
    const int at = g.blame.stage >= 0 && g.blame.cause == k ? g.blame.stage : g.stage;
    cost[{at, k}] += piece;
    if (k == IdleClass::CommStall && g.blame.cause == k && g.blame.stage >= 0) {
      links[{g.blame.stage, g.blame.toStage}] += piece;
    }
  }
}

PipelineCulprit pipelineCulprit(const PipelineResult& pl) {
  StallCosts stalls;
  for (const Gap& g : pl.gaps) stalls.add(g);
  return pipelineCulprit(pl, stalls);
}

PipelineCulprit pipelineCulprit(const PipelineResult& pl, const StallCosts& stallCosts) {
  PipelineCulprit c;
  const TimeNs measured = pl.stepTimeMeasured, ideal = pl.stepTimeIdeal;
  // Half a percent of the step: a host stall of 12 ms in a 1 s step is worth naming, though it
  // keeps S within the job's 3% (kStragglerExcess); less is run-to-run noise.
  if (ideal <= 0 || (measured - ideal) * 200 < measured) {
    c.text = "none: the pipeline is as good as its schedule (S = " + printed("%.2fx", pl.slowdown) +
             "); its idle is the schedule's own bubbles";
    return c;
  }
  const TimeNs excess = measured - ideal;
  c.none = false;
  TimeNs imbalance = std::max<TimeNs>(0, pl.stepTimeStage - ideal);
  TimeNs jitter = std::max<TimeNs>(0, pl.stepTimeOps - pl.stepTimeStage);
  TimeNs stalls = std::max<TimeNs>(0, measured - pl.stepTimeOps);
  // The root causes replay each step with one cause taken out; the step-time split above only
  // compares whole scenarios, and a slow stage can replay faster at its stage means than at the
  // balanced ideal (an interleaved schedule hides its slack). Where the largest win is a class
  // the split puts below another, the culprit line follows the root causes, so it names what
  // they list first.
  const RootCause* first = pl.rootCauses.empty() ? nullptr : &pl.rootCauses.front();
  const TimeNs firstWin =
      first ? first->win / static_cast<TimeNs>(std::max<size_t>(1, pl.steps.size())) : 0;
  if (first != nullptr && firstWin > 0) {
    const IdleClass k = first->id.cause;
    TimeNs& its = k == IdleClass::Imbalance ? imbalance : k == IdleClass::Jitter ? jitter : stalls;
    if (k == IdleClass::Imbalance || k == IdleClass::Jitter || isStall(k)) {
      its = std::max(its, std::max({imbalance, jitter, stalls}) + 1);
    }
  }
  if (imbalance >= jitter && imbalance >= stalls) {
    auto worst = std::max_element(
        pl.stages.begin(), pl.stages.end(),
        [](const StageResult& a, const StageResult& b) { return a.slowdown < b.slowdown; });
    if (first != nullptr && first->id.cause == IdleClass::Imbalance && first->id.stage >= 0) {
      for (auto it = pl.stages.begin(); it != pl.stages.end(); ++it) {
        if (it->stage == first->id.stage) worst = it;
      }
    }
    c.stage = worst->stage;
    c.cause = IdleClass::Imbalance;
    c.gain = std::clamp<TimeNs>(static_cast<TimeNs>((worst->slowdown - 1) * ideal), 0, excess);
    if (first != nullptr && first->id.cause == IdleClass::Imbalance) {
      c.gain = std::max(c.gain, std::min(firstWin, excess));
    }
    c.text = "stage " + std::to_string(c.stage) + ": S_s = " + printed("%.2fx", worst->slowdown) +
             " (imbalance: its ops run longer than the other stages')" +
             stepWouldShrink(c.gain, measured) + " with it at the ideal";
    return c;
  }
  if (stalls >= jitter) {
    // The stall that cost the most idle over all steps, by where the walk found it (the stage
    // and class its sentences name); a stall with no place found is the gap's own stage's. Every
    // gap's stall pieces count, not only the gaps a stall dominates: a transfer that costs
    // 0.15 ms in each of many gaps the schedule mostly explains is still what S pays for.
    const auto& cost = stallCosts.cost;
    const auto& links = stallCosts.links;
    c.gain = std::min(stalls, excess);
    c.cause = IdleClass::OtherStall;
    if (cost.empty()) {
      c.text = "stalls: the step runs " + printed("%.1f ms", static_cast<double>(stalls) / 1e6) +
               " longer than its measured op costs allow" + stepWouldShrink(c.gain, measured) +
               " without them";
      return c;
    }
    auto worst = std::max_element(cost.begin(), cost.end(),
                                  [](const auto& a, const auto& b) { return a.second < b.second; });
    if (first != nullptr && isStall(first->id.cause) && first->id.stage >= 0) {
      if (auto it = cost.find({first->id.stage, first->id.cause}); it != cost.end()) worst = it;
    }
    c.stage = worst->first.first;
    c.cause = worst->first.second;
    if (c.cause == IdleClass::CommStall) {
      TimeNs most = 0;
      for (const auto& [link, idle] : links) {
        if (link.first == c.stage && idle > most) {
          most = idle;
          c.toStage = link.second;
        }
      }
    }
    // A comm stall is a link's, as the root causes name it.
    const std::string where = c.toStage >= 0 ? "the link stage " + std::to_string(c.stage) +
                                                   " -> stage " + std::to_string(c.toStage)
                                             : "stage " + std::to_string(c.stage);
    c.text = std::string(idleClassName(worst->first.second)) + " on " + where + ": " +
             printed("%.1f ms", static_cast<double>(worst->second) / 1e6) +
             " of idle over the steps analysed; stalls together" +
             stepWouldShrink(c.gain, measured) + " without them";
    return c;
  }
  c.gain = std::min(jitter, excess);
  c.cause = IdleClass::Jitter;
  c.text = "jitter: op costs vary around their stage's mean (no stage stands out)" +
           stepWouldShrink(c.gain, measured) + " with every op at its stage's mean";
  return c;
}

}  // namespace bubblescope::analysis
