#pragma once
// `bubblescope analyze` started by an MPI launcher as one of several processes (mpirun, srun): the
// processes list the run's files, MPI rank 0 gives each file to one of them, each loads and
// recognises its files one at a time (cli/analysis_shard.h) and sends what the analysis reads on;
// rank 0 analyses the job from that and writes the reports, which are those one process writes.
#include <optional>
#include <string>

#include "analyzer/analyze.h"
#include "cli/cmd_analyze.h"

namespace bubblescope::cli {

// The analysis on MPI rank 0; nullopt on the others, which write nothing. Errors (a file missing or
// unreadable on any process, a run not of one format) are thrown on rank 0 as one sentence, as the
// single process says them; the other processes then end quietly, since none waits on them.
std::optional<analysis::AnalysisResult> analyzeAcrossProcesses(
    const AnalyzeOptions& o, const analysis::AnalyzeOptions& options, const std::string& launcher,
    int launcherSize);

}  // namespace bubblescope::cli
