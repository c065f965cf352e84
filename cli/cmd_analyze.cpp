// bubblescope analyze: a recorded (or imported) run in, the report out.
#include <unistd.h>

#include <iostream>
#include <memory>

#include "analyzer/analyze.h"
#include "analyzer/report/report.h"
#include "cli/cmd_analyze.h"
#include "cli/exit_codes.h"
#include "cli/malloc_policy.h"
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
  traces::Run run = loadRun(o.paths);
  analysis::AnalyzeOptions options = analyzeOptions(o.analysis);
  options.utilizationWithoutPipeline = true;  // every job gets an answer
  // A summary names a few gaps: the others are folded, not kept (most of an op-level timeline's
  // memory at 10^4 steps and more).
  options.everyGap = o.detail || !f.namesFewGaps;
  // The reports need only the result: the run's ranges go as they are recognised.
  const analysis::AnalysisResult result = analysis::analyzeRun(std::move(run), options);

  if (o.output.empty() || o.output == "-") {
    analysis::writeReport(result, f, std::cout, {f.colors && isatty(1), o.detail});
    return kOk;
  }
  traces::writeOutputFile(o.output, [&](std::ostream& out) {
    analysis::writeReport(result, f, out, {false, o.detail});
  });
  std::cerr << "bubblescope: report written to " << o.output << "\n";
  return kOk;
}

}  // namespace bubblescope::cli
