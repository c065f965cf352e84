#include "cli/analysis_flags.h"

#include "cli/step_range.h"

namespace bubblescope::cli {

analysis::AnalyzeOptions analyzeOptions(const AnalysisFlags& flags, WarmupStep warmup) {
  analysis::AnalyzeOptions options;
  options.alignClocks = !flags.noClockAlign;
  // No --steps: every step but the capture's first, which warms up; --steps all keeps it.
  options.leaveOutWarmupStep = flags.steps.empty() && warmup == WarmupStep::LeftOut;
  parseStepRange(flags.steps, options);
  for (const auto& r : flags.rules) options.ruleFiles.emplace_back(r);
  return options;
}

void appendAnalysisArgs(const AnalysisFlags& flags, std::vector<std::string>& argv) {
  // "=": a step range may start with "-"
  if (!flags.steps.empty()) argv.push_back("--steps=" + flags.steps);
  for (const auto& r : flags.rules) argv.push_back("--rules=" + r);
  if (flags.noClockAlign) argv.push_back("--no-clock-align");
}

}  // namespace bubblescope::cli
