#pragma once
// The JSON report: `schema_version` and every number of the analysis (times in ns).
#include <nlohmann/json.hpp>

#include "analyzer/result/result.h"

namespace bubblescope::analysis {

nlohmann::json toJson(const AnalysisResult& result);

}  // namespace bubblescope::analysis
