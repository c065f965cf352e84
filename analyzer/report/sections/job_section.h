#pragma once
// The job-wide section of the reports (JobResult: several DP replicas or TP ranks): the culprit
// sentence first, then S and the three what-if tables (S_s, S_d, S_k), the DP sync's waiting and
// whom it waited for, TP groups' spread and slow ranks, sequence-length imbalance.
#include <ostream>

#include "analyzer/report/json_writer.h"
#include "analyzer/result/job_result.h"

namespace bubblescope::analysis {

void writeJobText(const JobResult& job, std::ostream& out);
void writeJobMarkdown(const JobResult& job, std::ostream& out);
void writeJobHtml(const JobResult& job, std::ostream& out);  // a <section id="job">
// {"slowdown", "culprit", "stages": [{"stage", "slowdown", "step_ns"}], "dp_ranks": [...],
//  "op_types": [...], "dp_sync": {...}, "tp_groups": [...], "sequence_imbalance": [...]}
void writeJobJson(const JobResult& job, JsonWriter& out);

}  // namespace bubblescope::analysis
