// bubblescope analyze: a recorded (or imported) run in, the report out.
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>

#include "analyzer/analyze.h"
#include "analyzer/report/report.h"
#include "cli/analyze_mpi.h"
#include "cli/cmd_analyze.h"
#include "cli/exit_codes.h"
#include "cli/malloc_policy.h"
#include "cli/mpi_launcher.h"
#include "cli/run_loading.h"
#include "cli/usage_error.h"
#include "traces/files/output_file.h"

namespace bubblescope::cli {
int runAnalyze(const AnalyzeOptions& o) {
  configureMalloc();  // a run held as columns, built and freed phase by phase
  const analysis::ReportFormat* format = nullptr;
  if (!o.format.empty()) {
    format = analysis::findReportFormat(o.format);
    if (!format) {
      throw UsageError("unknown report format '" + o.format +
                       "' (known: " + analysis::reportFormatKeys() + ")");
    }
  } else if (!o.output.empty()) {
    format = analysis::reportFormatForFile(o.output);
  }
  const analysis::ReportFormat& f = format ? *format : analysis::reportFormats().front();
  analysis::AnalyzeOptions options = analyzeOptions(o.analysis);
  options.utilizationWithoutPipeline = true;  // every job gets an answer
  // A summary names a few gaps: the others are folded, not kept (most of an op-level timeline's
  // memory at 10^4 steps and more).
  options.everyGap = o.detail || !f.namesFewGaps;
  // Started by mpirun or srun as one of several: the run's files are shared out (analyze_mpi.h).
  const LauncherWorld world = launcherWorld([](const char* name) { return std::getenv(name); });
  if (o.local && world.size < 2) {
    throw UsageError(
        "--local goes with an MPI launcher (mpirun, srun) that starts analyze on "
        "every node");
  }
  std::optional<analysis::AnalysisResult> shared;
  if (world.size > 1) {
    shared = analyzeAcrossProcesses(o, options, world.variable, world.size);
    if (!shared) return kOk;  // not MPI rank 0: it writes the reports
  } else {
    // The reports need only the result: the run's ranges go as they are recognised.
    shared = analysis::analyzeRun(loadRun(o.paths), options);
  }
  const analysis::AnalysisResult& result = *shared;

  if (o.output.empty() || o.output == "-") {
    // Under a launcher stdout may be a terminal of mpirun's making whatever the user's is.
    analysis::writeReport(result, f, std::cout,
                          {f.colors && isatty(1) && world.size < 2, o.detail});
    return kOk;
  }
  traces::writeOutputFile(o.output, [&](std::ostream& out) {
    analysis::writeReport(result, f, out, {false, o.detail});
  });
  std::cerr << "bubblescope: report written to " << o.output << "\n";
  return kOk;
}

}  // namespace bubblescope::cli
