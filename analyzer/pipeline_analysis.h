#pragma once
// Analysis of one pipeline: steps, the split and idle classes per stage and step, gaps and their
// blame, slowdowns against the ideal schedule, schedule detection and the what-if table.
#include <string>
#include <vector>

#include "analyzer/pipeline/pipeline_trace.h"
#include "analyzer/result/dp_wait.h"
#include "analyzer/result/result.h"

namespace bubblescope::analysis {

// Which gaps keep the sentence that blames them (Blame::text): every gap, or only those a summary
// report prints (the top gaps, and each root cause's own gap it names first). A sentence is
// ~150 bytes, more than the rest of its gap: at 20,000 steps they were a fifth of the peak.
enum class GapTexts { All, Listed };

// Throws AnalysisInputError when the pipeline has no step complete on every stage. `dpWaits`: its
// stages' waits at the DP sync (a job of several replicas), held by their drain gaps.
PipelineResult analyzePipeline(const PipelineTrace& pipeline, std::vector<std::string>& warnings,
                               const DpWaits* dpWaits = nullptr, GapTexts texts = GapTexts::All);

// The gaps a user should look at first (PipelineResult::topGaps): the largest avoidable idle
// (ties: the largest idle), at most five, none with less than kLeastListedGap of it.
std::vector<int> topGapsOf(const std::vector<Gap>& gaps);

}  // namespace bubblescope::analysis
