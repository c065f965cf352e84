#pragma once
// The parts of a span as every JSON bubblescope writes them: a pipeline stage's split (idle by
// class) and a rank's utilization split (the waiting inside communication) share one shape.
#include "analyzer/report/json_writer.h"
#include "analyzer/result/result.h"

namespace bubblescope::analysis {

// {"span_ns", "compute_ns", "exposed_comm_ns", "other_busy_ns", "idle_ns", "idle_by_class_ns"}
void writeSplitJson(const Split& s, JsonWriter& out);
// The same parts, with "comm_wait_ns" where a pipeline has idle by class, and, when some of that
// wait is in collectives with members not traced, "comm_wait_members"; a utilization step's split
// has its number and window ("step", "start_ns", "end_ns") among the parts.
struct StepFields {
  int64_t number = 0;
  TimeNs start = 0, end = 0;
};
void writeSplitJson(const UtilizationSplit& s, JsonWriter& out, const StepFields* step = nullptr);
// {"traced": 2, "of": 128, "text": "2 of 128 members traced"}: a wait figure's traced members.
void writeTracedMembersJson(const TracedMembers& m, JsonWriter& out);
// {"<idle class key>": ns, ...}; skipZero leaves out the classes with none.
void writeIdleByClassJson(const IdleByClass& byClass, bool skipZero, JsonWriter& out);

}  // namespace bubblescope::analysis
