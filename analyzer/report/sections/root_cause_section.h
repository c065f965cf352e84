#pragma once
// The root causes (idle/root_causes.h) as every report shows them: per cause what removing it
// wins, the idle it cost, the gap where it happened and its knock-ons folded under it; in JSON,
// the whole list beside `top_gaps`.
#include <string>

#include "analyzer/report/json_writer.h"
#include "analyzer/result/result.h"

namespace bubblescope::analysis {

// The reports list this many causes, as they listed this many top gaps.
inline constexpr size_t kRootCausesShown = 5;
// Knock-ons the HTML report lists under a cause, each with its sentence.
inline constexpr size_t kKnockOnsListed = 20;

// What the list is, for its heading's note.
inline constexpr const char* kRootCausesNote =
    "idle a better balance or schedule could win back, by what caused it; largest win first";

// "removing it wins 15.0 ms in step 2 (5.9% of the time analysed); it cost 58.5 ms of idle in 4
// gaps"
std::string rootCauseCost(const PipelineResult& pipeline, const RootCause& cause);

// Whether a gap may be named in a list: a gap with less avoidable idle than kLeastListedGap would
// read "0.00 ms" (it is still counted and summed).
bool listable(const PipelineResult& pipeline, int gap);
// How many of the cause's knock-ons are listable (they lead its list: largest first).
size_t knockOnsListable(const PipelineResult& pipeline, const RootCause& cause);

// "step 2, stage 3, 15.17 ms before F5": a gap's place and its avoidable idle.
std::string gapPlace(const PipelineResult& pipeline, const Gap& gap);

// Where it happened: "In step 2, stage 1 waited 15.0 ms because ..." (the largest of its own gaps'
// sentences, and how many more there are); "" when every gap is a knock-on.
std::string rootCauseOwn(const PipelineResult& pipeline, const RootCause& cause);

// "Knock-ons: 3 gaps on stages 0, 2, 3, 43.5 ms"; "" when it has none.
std::string knockOnSummary(const RootCause& cause);
// The summary and the largest few: "...; largest step 2, stage 3, 15.17 ms before F5; ...".
std::string knockOnLine(const PipelineResult& pipeline, const RootCause& cause);

// pipelines[].root_causes[]: {cause, stage, op, link {from, to}, text, win_ns, idle_ns,
// step_count, gap_count, knock_ons {count, idle_ns}}; stage, op and link only where the cause has
// them; with `detail` also the indexes: steps, gaps (its own) and knock_ons.gaps.
void writeRootCausesJson(const PipelineResult& pipeline, bool detail, JsonWriter& out);

}  // namespace bubblescope::analysis
