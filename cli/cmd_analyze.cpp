// bubblescope analyze: a recorded (or imported) run in, the report out.
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <memory>

#include "analyzer/analyze.h"
#include "cli/command.h"
#include "cli/exit_codes.h"
#include "cli/run_loading.h"
#include "cli/step_range.h"
#include "analyzer/report/report.h"

namespace bubblescope::cli {
namespace {

struct AnalyzeOptions {
  std::vector<std::string> paths;
  std::string format;
  std::string output;
  bool noClockAlign = false;
  std::vector<std::string> rules;
  std::string steps;
};

int runAnalyze(const AnalyzeOptions& o) {
  using analysis::ReportFormat;
  std::optional<ReportFormat> format;
  if (!o.format.empty()) {
    format = analysis::parseReportFormat(o.format);
    if (!format) {
      throw UsageError("unknown report format '" + o.format +
                       "' (known: text, json, md, html, junit)");
    }
  } else if (!o.output.empty()) {
    format = analysis::formatForFile(o.output);
  }
  const traces::Run run = loadRun(o.paths);
  analysis::AnalyzeOptions options;
  options.alignClocks = !o.noClockAlign;
  parseStepRange(o.steps, options);
  for (const auto& r : o.rules) options.ruleFiles.emplace_back(r);
  const analysis::AnalysisResult result = analysis::analyzeRun(run, options);

  const ReportFormat f = format.value_or(ReportFormat::Text);
  if (o.output.empty() || o.output == "-") {
    analysis::writeReport(result, f, std::cout, f == ReportFormat::Text && isatty(1));
    return kOk;
  }
  std::ofstream out(o.output, std::ios::binary);
  if (!out) throw UsageError(o.output + ": cannot be written");
  analysis::writeReport(result, f, out, false);
  out.close();
  if (!out) throw UsageError(o.output + ": cannot be written (disk full?)");
  std::cerr << "bubblescope: report written to " << o.output << "\n";
  return kOk;
}

}  // namespace

void addAnalyzeCommand(CLI::App& app, Action& action) {
  auto opts = std::make_shared<AnalyzeOptions>();
  auto* sub = app.add_subcommand(
      "analyze",
      "Analyze a recorded run: where each stage's time went, which bubble each idle "
      "interval is, what caused it, and what a schedule change would buy");
  sub->add_option("run", opts->paths, "Run directory (one trace per rank), or trace files")
      ->required();
  sub->add_option("--format", opts->format, "text (default), json, md, html or junit");
  sub->add_option("-o,--output", opts->output,
                  "Write the report here (format from the extension unless --format)");
  sub->add_flag("--no-clock-align", opts->noClockAlign,
                "Take every rank's clock as it is (no skew correction)");
  sub->add_option("--steps", opts->steps,
                  "Steps to analyse by number: N, A:B, A: or :B (e.g. 1: leaves step 0 out)");
  sub->add_option("--rules", opts->rules,
                  "A JSON rule set for your framework's labels, tried before the built-in ones")
      ->check(CLI::ExistingFile);
  sub->callback([&action, opts] { action = [opts] { return runAnalyze(*opts); }; });
}

}  // namespace bubblescope::cli
