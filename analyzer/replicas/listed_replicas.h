#pragma once
// A summary of a job of many DP replicas lists a few pipelines whole and the others as one line
// each: a report of 10,000 replicas' sections is 58 MB no one reads, and holding every replica's
// gaps, root causes and what-ifs until it is written was most of the analysis's memory (issue
// 28). Which ones are listed whole is known before any replica is analysed, from the job's own
// rounds (job_analysis.h): the culprit's replica, those the DP sync waited on, then the largest
// S_d. Pure: no I/O.
#include <cstddef>
#include <vector>

#include "analyzer/result/job_result.h"
#include "analyzer/result/result.h"

namespace bubblescope::analysis {

// A summary lists at most this many pipelines whole (AnalyzeOptions::pipelinesListedWhole).
inline constexpr size_t kPipelinesListedWhole = 16;

// Per replica (in the order of `dpRanks`, each replica's DP rank): whether it is listed whole.
// At most `most` are, and every one when there are no more than that: the replica the job's
// culprit names, then those the DP sync blames (largest wait first), then by S_d, largest first
// (the lower DP rank on a tie).
std::vector<bool> replicasListedWhole(const JobResult& job, const std::vector<int>& dpRanks,
                                      size_t most);

// A pipeline's result reduced to what its line in a summary reads (PipelineResult::summarised);
// its lists' memory is given back.
void summarisePipeline(PipelineResult& pl);

}  // namespace bubblescope::analysis
