#pragma once
// Analysis of one pipeline: steps, the split and idle classes per stage and step, gaps and their
// blame, slowdowns against the ideal schedule, schedule detection and the what-if table.
#include <string>
#include <vector>

#include "analyzer/pipeline/pipeline_trace.h"
#include "analyzer/result/dp_wait.h"
#include "analyzer/result/result.h"

namespace bubblescope::analysis {

// Which gaps PipelineResult::gaps keeps whole: every gap, or only those a summary report names
// (the top gaps, each root cause's largest own and knock-on gaps; PipelineResult::gapIndex), the
// rest folded into the root causes, the culprit and the inventory as each step is classified. A
// gap with its sentence takes ~340 bytes: at 20,000 steps the gaps were half the peak.
enum class KeptGaps { All, Listed };

// Throws AnalysisInputError when the pipeline has no step complete on every stage. `dpWaits`: its
// stages' waits at the DP sync (a job of several replicas), held by their drain gaps. With
// KeptGaps::Listed, PipelineResult::transfers is left empty and, unless `everyRecord` (for what
// reads them all afterwards: the memory look, the inference check), PipelineResult::ops holds only
// the ops the kept gaps end with (PipelineResult::opIndex) and the gaps are tallied for the
// inventory (PipelineResult::bubbleTallies), not kept as bubbles: an op-level timeline's records
// are one per event. Its steps are analysed `threads` at a time (the result is the same). Without
// `idealStep`, PipelineResult::idealOps is left empty (a replica to be summarised, which keeps
// none: its replay would be made for nothing).
PipelineResult analyzePipeline(const PipelineTrace& pipeline, std::vector<std::string>& warnings,
                               const DpWaits* dpWaits = nullptr, KeptGaps kept = KeptGaps::All,
                               bool everyRecord = true, unsigned threads = 1,
                               bool idealStep = true);

// The gaps a user should look at first (PipelineResult::topGaps): the largest avoidable idle
// (ties: the largest idle), at most five, none with less than kLeastListedGap of it.
std::vector<int> topGapsOf(const std::vector<Gap>& gaps);

}  // namespace bubblescope::analysis
