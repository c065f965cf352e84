#pragma once
// `bubblescope export perfetto`: a run's analysis as Chrome-trace JSON for the Perfetto UI. The
// command line (cli/command_line.cpp) fills ExportArgs.
#include <string>
#include <vector>

#include "cli/analysis_flags.h"

namespace bubblescope::cli {

struct ExportArgs {
  std::vector<std::string> paths;
  std::string output;
  AnalysisFlags analysis;    // no --steps: every step is exported
  bool withKernels = false;  // each rank's kernels and NCCL calls too
};

int runExportPerfetto(const ExportArgs& a);

}  // namespace bubblescope::cli
