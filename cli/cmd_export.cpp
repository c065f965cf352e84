// `bubblescope export perfetto`: the analysis of a run as a trace the Perfetto UI opens.
#include <iostream>
#include <memory>

#include "analyzer/analyze.h"
#include "analyzer/export/perfetto_export.h"
#include "cli/cmd_export.h"
#include "cli/exit_codes.h"
#include "cli/malloc_policy.h"
#include "cli/run_loading.h"
#include "cli/usage_error.h"
#include "traces/files/output_file.h"

namespace bubblescope::cli {
int runExportPerfetto(const ExportArgs& a) {
  configureMalloc();  // a run held as columns, built and freed phase by phase
  const traces::Run run = loadRun(a.paths);
  analysis::AnalyzeOptions analyze = analyzeOptions(a.analysis, WarmupStep::Shown);
  // With the kernels a job with no pipeline still has something to show: each rank's device work.
  analyze.utilizationWithoutPipeline = a.withKernels;
  const analysis::AnalysisResult result = analysis::analyzeRun(run, analyze);

  analysis::PerfettoOptions options;
  options.deviceTracks = a.withKernels;
  analysis::PerfettoStats stats;
  traces::writeOutputFile(a.output, [&](std::ostream& out) {
    stats = analysis::writePerfettoTrace(run, result, out, options);
  });
  std::cerr << "bubblescope: wrote " << stats.stages << " stages, " << stats.slices
            << " slices and " << stats.flows << " transfer arrows";
  if (a.withKernels) {
    std::cerr << ", " << stats.kernels << " kernels and " << stats.ncclCalls << " NCCL calls";
  }
  std::cerr << " to " << a.output << " (open it at https://ui.perfetto.dev)\n";
  return kOk;
}

}  // namespace bubblescope::cli
