#pragma once
// The JSON report: `schema_version` and every number of the analysis (times in ns).
#include <ostream>

#include <nlohmann/json.hpp>

#include "analyzer/result/result.h"

namespace bubblescope::analysis {

nlohmann::json toJson(const AnalysisResult& result);

// The same document, written as it is made: toJson(result).dump(indent) without the document.
void writeJsonReport(const AnalysisResult& result, std::ostream& out, int indent);

}  // namespace bubblescope::analysis
