#pragma once
// The parts of a span as every JSON bubblescope writes them: a pipeline stage's split (idle by
// class) and a rank's utilization split (the waiting inside communication) share one shape.
#include <nlohmann/json.hpp>

#include "analyzer/report/json_writer.h"
#include "analyzer/result/result.h"

namespace bubblescope::analysis {

// {"span_ns", "compute_ns", "exposed_comm_ns", "other_busy_ns", "idle_ns", "idle_by_class_ns"}
nlohmann::json splitJson(const Split& s);
// The same parts, with "comm_wait_ns" where a pipeline has idle by class, and, when some of that
// wait is in collectives with members not traced, "comm_wait_members".
nlohmann::json splitJson(const UtilizationSplit& s);
// {"traced": 2, "of": 128, "text": "2 of 128 members traced"}: a wait figure's traced members.
nlohmann::json tracedMembersJson(const TracedMembers& m);

// The same, written as they are made.
void writeSplitJson(const Split& s, JsonWriter& out);
// A utilization step's split has its number and window among the parts.
struct StepFields {
  int64_t number = 0;
  TimeNs start = 0, end = 0;
};
void writeSplitJson(const UtilizationSplit& s, JsonWriter& out, const StepFields* step = nullptr);
void writeTracedMembersJson(const TracedMembers& m, JsonWriter& out);
// {"<idle class key>": ns, ...}; skipZero leaves out the classes with none.
void writeIdleByClassJson(const IdleByClass& byClass, bool skipZero, JsonWriter& out);

}  // namespace bubblescope::analysis
