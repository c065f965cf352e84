#pragma once
// `analyze` under MPI once every process has recognised its share of the run's ranks
// (light_shard.h) and MPI rank 0 has what it plans by: rank 0 plans (each replica to the process
// holding most of its ranks, analyzer/owned_analysis.h), the ranks move once to their replica's
// owner, the owners match their replicas' comms and rank 0 those that span replicas and the job's
// clocks (split_matching.h), the owners build and analyse their replicas through the job's rounds,
// and rank 0 puts the analysis together. A run that must be analysed whole (TP groups, sends and
// receives that name no peer, no recognised ops) goes whole to rank 0, which analyses it as
// before (analysis_shard.h).
#include <filesystem>
#include <functional>
#include <optional>
#include <vector>

#include "analyzer/analyze.h"
#include "cli/light_shard.h"
#include "cli/mpi_job.h"

namespace bubblescope::cli {

// The analysis on rank 0; nullopt elsewhere. Errors are thrown on rank 0 once every process has
// been told to stop (none waits on another). `light`: rank 0's, null elsewhere. `lap` marks where
// the time went (BUBBLESCOPE_MPI_PHASES).
std::optional<analysis::AnalysisResult> analyzeShares(
    MpiJob& job, RecognisedShare&& share, LightAssembler* light,
    const traces::import::Inputs& inputs, const std::vector<std::filesystem::path>& paths,
    const analysis::AnalyzeOptions& options, bool wholeRun,
    const std::function<void(const char*)>& lap);

}  // namespace bubblescope::cli
