#pragma once
// The JSON report: `schema_version` and every number of the analysis (times in ns).
#include <ostream>
#include <string>

#include "analyzer/result/result.h"

namespace bubblescope::analysis {

// Written as it is made, nothing held (json_writer.h); `indent` as nlohmann's dump(indent).
void writeJsonReport(const AnalysisResult& result, std::ostream& out, int indent);
// The same as one string (for tests and for what reads the report back).
std::string jsonReportText(const AnalysisResult& result, int indent);

}  // namespace bubblescope::analysis
