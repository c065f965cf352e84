#pragma once
// The JSON report: `schema_version` and every number of the analysis (times in ns).
#include <ostream>
#include <string>

#include "analyzer/result/result.h"

namespace bubblescope::analysis {

// Summary: what a gate or a dashboard reads (run, clock, per pipeline the schedule, step times,
// S, stages and their totals, steps, root causes with counts, top gaps whole, what-if, inventory;
// the job and utilization sections). Full adds ops[], transfers[], gaps[], comm_waits[], each
// stage's per_step splits and the root causes' step and gap indexes (ReportStyle::detail).
enum class JsonDetail { Summary, Full };

// Written as it is made, nothing held (json_writer.h); `indent` as nlohmann's dump(indent).
void writeJsonReport(const AnalysisResult& result, std::ostream& out, int indent,
                     JsonDetail detail);
// The same as one string (for tests and for what reads the report back).
std::string jsonReportText(const AnalysisResult& result, int indent, JsonDetail detail);

}  // namespace bubblescope::analysis
