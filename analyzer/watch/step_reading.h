#pragma once
// What `bubblescope watch` says of one step (issue 30): the figures of an analysis of that step
// alone, so that `bubblescope analyze --steps N` of the same step recorded reads the same. Pure:
// an AnalysisResult in, a reading and its line out.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/result/result.h"

namespace bubblescope::analysis::watch {

// A culprit is named on a step's line only when the step would shrink by at least this share
// without it: a live step has no other steps to average its noise away with (the offline
// culprit line, over many steps, names one from half a percent). At 3%, a loaded 2-core machine
// got named now and then on a fault-free step (an op 2.5 ms late in a 72 ms step, 3.6%).
inline constexpr double kNamedShare = 0.05;

// What to fix first in one step: the pipeline culprit (whatif/pipeline_culprit.h) in the few
// words a line has room for.
struct StepCulprit {
  IdleClass cause = IdleClass::Imbalance;  // Imbalance, Jitter or a stall class
  int replica = -1;                        // the DP replica it is on; -1 in a one-replica job
  int stage = -1;                          // -1: no one stage (jitter, stalls with no place)
  int toStage = -1;                        // a comm stall: the link's receiver (stage sends)
  // Imbalance: the op kind on which the stage lost the most time against the same kind's mean
  // over the stages, and its cost over that mean.
  std::optional<OpKind> op;
  double ratio = 0;
  TimeNs cost = 0;  // how much shorter the step would be without it

  // The same culprit in two steps has the same key, whatever its cost, the op kind it leads with
  // (a stage slow at F and B alike may lead with either) or the link a comm stall names (a stage
  // whose sends are all late leads with either neighbour, 60.0 ms against 60.3):
  // "imbalance stage 2", "stall_comm stage 1".
  std::string key() const;
  // "imbalance: stage 2 F +96.0 ms (1.41x)", "stall: comm on stage 1->2 +12.0 ms".
  std::string text() const;
  // What and where: "imbalance: stage 2", "stall: comm on stage 1->2".
  std::string place() const;
  // The same without the link: what a key reads as to a person, "stall: comm on stage 1".
  std::string where() const;
};

struct StageReading {
  int replica = 0;
  int stage = 0;
  Split split;          // the stage's step: compute, comm, other busy, idle by class
  double slowdown = 1;  // S_s: the step with only this stage at its measured costs
};

struct StepReading {
  int64_t step = 0;  // the step's number, as the trace numbers it
  TimeNs stepTime = 0;
  double bubble = 0;    // idle over stage time: every stage's idle / every stage's step span
  double slowdown = 1;  // S: measured / ideal step time (the job's, with several replicas)
  IdleByClass idle{};   // every stage's idle, by class
  std::optional<StepCulprit> culprit;
  std::vector<StageReading> stages;  // by replica, then stage
};

// `oneStep`: the analysis of exactly one step (AnalyzeOptions::firstStep == lastStep) of a job
// with at least one pipeline. Throws std::invalid_argument when it holds no step.
StepReading readStep(const AnalysisResult& oneStep);

// "step 1412  812.3 ms  bubble 31.2%  S 1.14x  imbalance: stage 2 F +96.0 ms (1.41x)"; with no
// culprit the line ends "no culprit".
std::string stepLine(const StepReading& reading);

}  // namespace bubblescope::analysis::watch
