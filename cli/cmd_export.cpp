// `bubblescope export perfetto`: the analysis of a run as a trace the Perfetto UI opens.
#include <fstream>
#include <iostream>
#include <memory>

#include "analyzer/analyze.h"
#include "cli/command.h"
#include "cli/exit_codes.h"
#include "cli/run_loading.h"
#include "analyzer/export/perfetto_export.h"

namespace bubblescope::cli {
namespace {

struct ExportArgs {
  std::vector<std::string> paths;
  std::string output;
  bool noClockAlign = false;
  std::vector<std::string> rules;
};

int runExportPerfetto(const ExportArgs& a) {
  const traces::Run run = loadRun(a.paths);
  analysis::AnalyzeOptions options;
  options.alignClocks = !a.noClockAlign;
  for (const auto& r : a.rules) options.ruleFiles.emplace_back(r);
  const analysis::AnalysisResult result = analysis::analyzeRun(run, options);

  std::ofstream out(a.output, std::ios::binary);
  if (!out) throw UsageError(a.output + ": cannot be written");
  const analysis::PerfettoStats stats = analysis::writePerfettoTrace(run, result, out);
  out.close();
  if (!out) throw UsageError(a.output + ": cannot be written (disk full?)");
  std::cerr << "bubblescope: wrote " << stats.processes << " stages, " << stats.slices
            << " slices and " << stats.flows << " transfer arrows to " << a.output
            << " (open it at https://ui.perfetto.dev)\n";
  return kOk;
}

}  // namespace

void addExportCommand(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand("export", "Write a run's analysis in another tool's format");
  sub->require_subcommand(1);
  auto args = std::make_shared<ExportArgs>();
  auto* perfetto = sub->add_subcommand(
      "perfetto",
      "Chrome-trace JSON for the Perfetto UI: stages as processes, ops, idle gaps named by "
      "class with their blame, transfers as arrows");
  perfetto
      ->add_option("run", args->paths, "Run directory or trace files (any format analyze reads)")
      ->required();
  perfetto->add_option("-o,--output", args->output, "The JSON file to write")->required();
  perfetto->add_flag("--no-clock-align", args->noClockAlign,
                     "Take every rank's clock as it is (no skew correction)");
  perfetto->add_option("--rules", args->rules, "A JSON rule set for your framework's labels")
      ->check(CLI::ExistingFile);
  perfetto->callback([&action, args] { action = [args] { return runExportPerfetto(*args); }; });
}

}  // namespace bubblescope::cli
