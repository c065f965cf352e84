#pragma once
// The parts of a span as every JSON bubblescope writes them: a pipeline stage's split (idle by
// class) and a rank's utilization split (the waiting inside communication) share one shape.
#include <nlohmann/json.hpp>

#include "analyzer/result/result.h"

namespace bubblescope::analysis {

// {"span_ns", "compute_ns", "exposed_comm_ns", "other_busy_ns", "idle_ns", "idle_by_class_ns"}
nlohmann::json splitJson(const Split& s);
// The same parts, with "comm_wait_ns" where a pipeline has idle by class.
nlohmann::json splitJson(const UtilizationSplit& s);

}  // namespace bubblescope::analysis
