// bubblescope analyze: a recorded (or imported) run in, the report out.
#include <unistd.h>

#include <iostream>
#include <memory>

#include "analyzer/analyze.h"
#include "analyzer/report/report.h"
#include "cli/cmd_analyze.h"
#include "cli/exit_codes.h"
#include "cli/run_loading.h"
#include "cli/step_range.h"
#include "cli/usage_error.h"
#include "traces/files/output_file.h"

namespace bubblescope::cli {
namespace {}  // namespace

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
  traces::Run run = loadRun(o.paths);
  analysis::AnalyzeOptions options;
  options.alignClocks = !o.noClockAlign;
  options.utilizationWithoutPipeline = true;  // every job gets an answer
  parseStepRange(o.steps, options);
  for (const auto& r : o.rules) options.ruleFiles.emplace_back(r);
  // The reports need only the result: the run's ranges go as they are recognised.
  const analysis::AnalysisResult result = analysis::analyzeRun(std::move(run), options);

  const ReportFormat f = format.value_or(ReportFormat::Text);
  if (o.output.empty() || o.output == "-") {
    analysis::writeReport(result, f, std::cout, f == ReportFormat::Text && isatty(1));
    return kOk;
  }
  traces::writeOutputFile(o.output,
                          [&](std::ostream& out) { analysis::writeReport(result, f, out, false); });
  std::cerr << "bubblescope: report written to " << o.output << "\n";
  return kOk;
}

}  // namespace bubblescope::cli
