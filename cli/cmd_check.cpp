// bubblescope check: the regression gate. Compares a run (or its JSON report) with a baseline
// (a JSON report, or a run); exit 1 when a gated metric regressed beyond its threshold, 2 on bad
// input.
#include <unistd.h>

#include <iostream>
#include <sstream>

#include "analyzer/analyze.h"
#include "analyzer/check/check_output.h"
#include "analyzer/check/compare.h"
#include "analyzer/check/report_figures.h"
#include "analyzer/report/report.h"
#include "cli/check_input.h"
#include "cli/cmd_check.h"
#include "cli/exit_codes.h"
#include "cli/malloc_policy.h"
#include "cli/run_loading.h"
#include "traces/files/output_file.h"

namespace bubblescope::cli {
namespace {

struct Side {
  analysis::ReportFigures figures;
  std::string what;  // for an input analysed here: what it was ("Kineto JSON, analysed")
};

// A JSON report is read as it is. A run or trace is analysed with `options`, and its figures are
// read from the report `analyze --format json` would write, so either gives one verdict.
Side sideOf(const std::string& path, const analysis::AnalyzeOptions& options) {
  const CheckInput input = recogniseCheckInput(path);
  if (input.kind == CheckInput::Kind::Report) {
    return {analysis::figuresFromText(input.reportText, path), {}};
  }
  traces::Run run = loadRun({path});
  std::string what = analysedInputName(input, run) + ", analysed";
  const analysis::AnalysisResult result = analysis::analyzeRun(std::move(run), options);
  std::ostringstream report;
  analysis::writeReport(result, analysis::reportFormat("json"), report);
  return {analysis::figuresFromText(report.str(), path), std::move(what)};
}

}  // namespace

int runCheck(const CheckOptions& o) {
  configureMalloc();  // a run held as columns, built and freed phase by phase
  // A bad --steps is a usage error even when not analysing.
  analysis::AnalyzeOptions options = analyzeOptions(o.analysis);
  options.utilizationWithoutPipeline = true;  // a job with no pipeline is gated on utilization
  const Side base = sideOf(o.baseline, options);
  const Side current = sideOf(o.current, options);
  const analysis::CheckResult result =
      analysis::compareReports(base.figures, current.figures, o.thresholds);
  const analysis::CheckNames names{o.baseline, o.current, base.what, current.what};
  if (!o.junit.empty()) {
    traces::writeOutputFile(
        o.junit, [&](std::ostream& out) { analysis::writeCheckJunit(result, names, out); });
  }
  analysis::printCheck(result, names, std::cout, isatty(1));
  return result.regressed() ? kCheckFailed : kOk;
}

}  // namespace bubblescope::cli
