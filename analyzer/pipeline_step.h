#pragma once
// One step of a pipeline analysed on its own: re-run by the simulator, its idle classified per
// stage, its gaps blamed and their causes found, its ops and transfers recorded. Steps are analysed
// side by side and committed to the pipeline's result in step order (pipeline_analysis.cpp).
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/idle/blame_words.h"
#include "analyzer/idle/root_causes.h"
#include "analyzer/idle/scenarios.h"
#include "analyzer/idle/stage_alone.h"
#include "analyzer/pipeline/pipeline_trace.h"
#include "analyzer/result/buckets.h"
#include "analyzer/result/dp_wait.h"
#include "analyzer/result/result.h"
#include "analyzer/timeline/step_view.h"
#include "reference_engine/schedule/schedule.h"

namespace bubblescope::analysis {

// What one step's analysis finds, made apart from every other step's (steps are analysed
// several at a time) and committed to the pipeline's result in step order (pipeline_analysis.cpp).
// Its records name the step by its common step (StepView::index) and its gaps' ops by their place
// in `ops`, as the step's index among the analysed steps and its ops' among every record are known
// only in that order.
struct StepOutcome {
  std::string refused;  // why the simulator could not re-run it ("" when it could)
  StepInfo info;
  TimeNs measured = 0, ideal = 0, stage = 0, replayedOps = 0, replayed = 0;
  // The op whose replay starts latest against when it ran, if later than 0 (the first such).
  TimeNs latest = 0;
  std::string latestOp;
  bool finished = false;
  std::string unfinished;  // "step 3: B4 of virtual stage 1 ... never runs"
  std::vector<StageAlone> alone;
  std::vector<Split> splits;  // per stage
  std::vector<Gap> gaps;
  // The words of each gap's sentence, parallel to `gaps`, where the step leaves the sentences
  // unwritten (StepInputs::everySentence false); else empty.
  std::vector<BlameWords> words;
  std::vector<OpRecord> ops;
  std::vector<TransferRecord> transfers;           // only where every gap is kept (everySentence)
  std::vector<std::optional<CauseId>> causeOfGap;  // parallel to gaps
  std::map<CauseId, TimeNs> wins;                  // what removing each cause wins in the step
};

// What every step reads and no step writes.
struct StepInputs {
  const PipelineTrace& pl;
  const MeanCosts& costs;
  const DpWaits* dpWaits;
  const Buckets& transfersByStep;  // per common step, into pl.transferSends
  TimeNs transferMedian, tailMedian;
  int imbalancedStage;
  // Write every gap's sentence (Blame::text) as the step is classified: an analysis that keeps
  // every gap. A summary's writes only those its reports list, from StepOutcome::words.
  bool everySentence;
};

// A step's gap handed on as soon as its stage is classified, for an analysis that folds gaps
// rather than keep them (a summary's, a step at a time): at 10,000 stages a step's gaps, with
// their words and causes, were 51 MB of a 346 MB peak (issue 28). With its sentence's words, its
// root cause, and the record of the op that ended it (null: a drain). The gap and that record
// still name the step by its common step, and `nextOp` indexes the step's records.
using GapFolder = std::function<void(Gap& gap, const BlameWords& words,
                                     const std::optional<CauseId>& cause, const OpRecord* next)>;

// What a step hands on as it goes rather than keep: its gaps, and, where set, its op records
// (an analysis that keeps no op but those its gaps name: at 10,000 stages a step's records were
// 7.7 MB at the analysis' peak, issue 28). The records come first, in record order, still naming
// the step by its common step.
struct StepFolder {
  GapFolder gap;
  std::function<void(const OpRecord& record)> op;  // empty: the records are kept in `ops`
};

// One step: re-run by the simulator (ideal, stage means, measured op costs), then its idle
// classified per stage, its gaps blamed, its ops and transfers recorded. A step the simulator
// cannot re-run comes back with only its number and `refused` set, and is left out. With `fold`,
// each gap goes to it in order, stage by stage, and the outcome keeps none (`gaps`, `words` and
// `causeOfGap` empty); as do its op records, where it takes them (`ops` empty). Reads nothing
// another step writes.
StepOutcome analyzeStep(const StepInputs& in, const StepView& view,
                        const StepFolder* fold = nullptr);

// The ops of a step analysed before (analyzeStep), as its replay with ideal costs runs them:
// PipelineResult::idealOps, named as step `stepIndex`. Made again once the steps are done rather
// than kept from the step's analysis, where they lay under its peak (10,000 stages: 7.7 MB).
// `order`: the step's observedSchedule where the caller holds it (else made here).
std::vector<OpRecord> idealStepOps(const StepInputs& in, const StepView& view, int stepIndex,
                                   const engine::Schedule* order = nullptr);

}  // namespace bubblescope::analysis
