// bubblescope check: the regression gate. Compares a run (or its JSON report) with a baseline
// JSON report; exit 1 when a gated metric regressed beyond its threshold, 2 on bad input.
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "analyzer/analyze.h"
#include "analyzer/check/check_output.h"
#include "analyzer/check/compare.h"
#include "analyzer/check/report_figures.h"
#include "analyzer/report/json_report.h"
#include "cli/cmd_check.h"
#include "cli/exit_codes.h"
#include "cli/run_loading.h"
#include "cli/usage_error.h"
#include "traces/files/output_file.h"

namespace bubblescope::cli {
namespace {

// A run directory or trace file is analysed with `options`; anything else is read as a JSON
// report.
analysis::ReportFigures currentFigures(const std::string& current,
                                       const analysis::AnalyzeOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path path(current);
  if (!fs::exists(path, ec)) throw analysis::CheckInputError(current + ": no such file");
  if (!fs::is_directory(path, ec) && path.extension() != ".sqlite") {
    return analysis::readReportFile(path);
  }
  const analysis::AnalysisResult result = analysis::analyzeRun(loadRun({current}), options);
  return analysis::figuresFromJson(analysis::toJson(result), current);
}

}  // namespace

int runCheck(const CheckOptions& o) {
  // A bad --steps is a usage error even when not analysing.
  analysis::AnalyzeOptions options = analyzeOptions(o.analysis);
  options.utilizationWithoutPipeline = true;  // a job with no pipeline is gated on utilization
  const analysis::ReportFigures base = analysis::readReportFile(o.baseline);
  const analysis::ReportFigures current = currentFigures(o.current, options);
  const analysis::CheckResult result = analysis::compareReports(base, current, o.thresholds);
  const analysis::CheckNames names{o.baseline, o.current};
  if (!o.junit.empty()) {
    traces::writeOutputFile(
        o.junit, [&](std::ostream& out) { analysis::writeCheckJunit(result, names, out); });
  }
  analysis::printCheck(result, names, std::cout, isatty(1));
  return result.regressed() ? kCheckFailed : kOk;
}

}  // namespace bubblescope::cli
