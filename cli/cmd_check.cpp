// bubblescope check: the regression gate. Compares a run (or its JSON report) with a baseline
// JSON report; exit 1 when a gated metric regressed beyond its threshold, 2 on bad input.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "analyzer/analyze.h"
#include "analyzer/check/check_output.h"
#include "analyzer/check/compare.h"
#include "analyzer/check/report_figures.h"
#include "cli/command.h"
#include "cli/exit_codes.h"
#include "cli/run_loading.h"
#include "cli/step_range.h"
#include "analyzer/report/json_report.h"

namespace bubblescope::cli {
namespace {

struct CheckOptions {
  std::string baseline;
  std::string current;
  analysis::CheckThresholds thresholds;
  std::string junit;
  bool noClockAlign = false;
  std::vector<std::string> rules;
  std::string steps;
};

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

int runCheck(const CheckOptions& o) {
  analysis::AnalyzeOptions options;
  options.alignClocks = !o.noClockAlign;
  parseStepRange(o.steps, options);  // a bad range is a usage error even when not analysing
  for (const auto& r : o.rules) options.ruleFiles.emplace_back(r);
  const analysis::ReportFigures base = analysis::readReportFile(o.baseline);
  const analysis::ReportFigures current = currentFigures(o.current, options);
  const analysis::CheckResult result = analysis::compareReports(base, current, o.thresholds);
  const analysis::CheckNames names{o.baseline, o.current};
  if (!o.junit.empty()) {
    std::ofstream out(o.junit, std::ios::binary);
    if (!out) throw UsageError(o.junit + ": cannot be written");
    analysis::writeCheckJunit(result, names, out);
    out.close();
    if (!out) throw UsageError(o.junit + ": cannot be written (disk full?)");
  }
  analysis::printCheck(result, names, std::cout, isatty(1));
  return result.regressed() ? kCheckFailed : kOk;
}

}  // namespace

void addCheckCommand(CLI::App& app, Action& action) {
  auto opts = std::make_shared<CheckOptions>();
  auto* sub = app.add_subcommand(
      "check",
      "Regression gate: compare a run (or its JSON report) with a baseline JSON report; exit 1 "
      "if the bubble share, S or the step time grew beyond the thresholds");
  sub->add_option("--baseline", opts->baseline,
                  "The baseline: a JSON report ('bubblescope analyze RUN --format json')")
      ->required();
  sub->add_option("current", opts->current,
                  "The run to check: a run directory (analysed now) or its JSON report")
      ->required();
  sub->add_option("--max-bubble-pp", opts->thresholds.bubblePp,
                  "Largest allowed rise of the bubble share (idle / span), in percentage points")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  sub->add_option("--max-slowdown", opts->thresholds.slowdown,
                  "Largest allowed rise of the slowdown S (measured / ideal step time)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  sub->add_option("--max-step-time-pct", opts->thresholds.stepTimePct,
                  "Largest allowed rise of the measured step time, in percent")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  sub->add_option("--junit", opts->junit,
                  "Also write the verdict as JUnit XML (a test case per gated metric) for CI");
  sub->add_flag("--no-clock-align", opts->noClockAlign,
                "When analysing a run: take every rank's clock as it is");
  sub->add_option("--steps", opts->steps,
                  "When analysing a run: the steps to analyse, N, A:B, A: or :B (as for analyze)");
  sub->add_option("--rules", opts->rules,
                  "When analysing a run: a JSON rule set for your framework's labels")
      ->check(CLI::ExistingFile);
  sub->callback([&action, opts] { action = [opts] { return runCheck(*opts); }; });
}

}  // namespace bubblescope::cli
