#pragma once
// Presentation figures derived from an analysis result, shared by the Markdown, HTML and JUnit
// reports (each a view of the same numbers): bubble share, avoidable idle, the add-up check.
#include <string>
#include <vector>

#include "analyzer/result/result.h"

namespace bubblescope::analysis {

// Idle as a fraction of the span (0 for an empty span).
double bubbleShare(const Split& s);
// compute + comm + other + idle = span and the classes = idle, on every stage and step and in the
// totals (exact, integer ns).
bool partsAddUp(const PipelineResult& pipeline);
// "1F1B (p=4, m=8)", "interleaved 1F1B (p=4, m=8, v=2)"; "custom" schedules say so.
std::string scheduleDescription(const ScheduleMatch& s);
// "warm-up", "drain", "sched.", "imbal.", "jitter", "stall: comm", ...: table headers.
const char* shortIdleClassName(IdleClass c);
// Stage indexes, largest S_s first (ties by stage).
std::vector<int> stagesBySlowdown(const PipelineResult& pipeline);
// The pipeline with the largest S (the first on a tie); nullptr when there is none.
const PipelineResult* slowestPipeline(const AnalysisResult& result);
// How many pipelines the result gives by their figures only (PipelineResult::summarised).
size_t summarisedPipelines(const AnalysisResult& result);
// What heads their table: how many, and which the report lists whole instead.
std::string summarisedPipelinesNote(const AnalysisResult& result);
// The class (index) with the most avoidable idle in `s`, or -1 when there is none.
int largestAvoidableClass(const Split& s);

}  // namespace bubblescope::analysis
