// `bubblescope export perfetto`: the analysis of a run as a trace the Perfetto UI opens.
#include <iostream>
#include <memory>

#include "analyzer/analyze.h"
#include "analyzer/export/perfetto_export.h"
#include "cli/cmd_export.h"
#include "cli/exit_codes.h"
#include "cli/run_loading.h"
#include "cli/usage_error.h"
#include "traces/files/output_file.h"

namespace bubblescope::cli {
int runExportPerfetto(const ExportArgs& a) {
  const traces::Run run = loadRun(a.paths);
  const analysis::AnalysisResult result = analysis::analyzeRun(run, analyzeOptions(a.analysis, WarmupStep::Shown));

  analysis::PerfettoStats stats;
  traces::writeOutputFile(
      a.output, [&](std::ostream& out) { stats = analysis::writePerfettoTrace(run, result, out); });
  std::cerr << "bubblescope: wrote " << stats.processes << " stages, " << stats.slices
            << " slices and " << stats.flows << " transfer arrows to " << a.output
            << " (open it at https://ui.perfetto.dev)\n";
  return kOk;
}

}  // namespace bubblescope::cli
