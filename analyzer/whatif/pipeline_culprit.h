#pragma once
// Every pipeline's culprit line (issue 26, item 4), as the job section has one: what to fix first
// and by how much the step would shrink, or that the pipeline is as good as its schedule. The
// measured step's excess over T_ideal splits into imbalance (T_stage - T_ideal), jitter
// (T_ops - T_stage) and stalls (measured - T_ops); the largest names the culprit: the stage with
// the largest S_s, op-to-op variation, or the stall that cost the most idle (by stage and class).
// Under half a percent of the step, there is none.
#include <map>
#include <string>
#include <utility>

#include "analyzer/result/result.h"

namespace bubblescope::analysis {

struct PipelineCulprit {
  std::string text;  // "stage 2: S_s = 1.30x (imbalance); the step would shrink by about ..."
  int stage = -1;    // the stage it names (-1: none)
  TimeNs gain = 0;   // how much shorter the step would be without it (per step)
  // What kind of excess it is (Imbalance, Jitter or a stall class; meaningless while `text`
  // says none) and, for a comm stall, the link's receiver (`stage` is its sender; -1 unknown):
  // what a live watch keys a persisting culprit by.
  IdleClass cause = IdleClass::Imbalance;
  int toStage = -1;
  bool none = true;  // within noise of its schedule: nothing to name
};

// Every gap's stall pieces by where the walk found them: the stage and class its sentence names
// (a stall with no place found is the gap's own stage's), and a comm stall's by its link.
struct StallCosts {
  std::map<std::pair<int, IdleClass>, TimeNs> cost;
  std::map<std::pair<int, int>, TimeNs> links;  // comm stall idle by (sender, receiver)
  void add(const Gap& gap);
};

// Reads the pipeline's step times, stages' S_s and gaps (all set before).
PipelineCulprit pipelineCulprit(const PipelineResult& pl);
// The same with the gaps' stall costs summed as they were classified (a summary's analysis
// holds only the gaps it lists).
PipelineCulprit pipelineCulprit(const PipelineResult& pl, const StallCosts& stalls);

}  // namespace bubblescope::analysis
