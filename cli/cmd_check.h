#pragma once
// `bubblescope check`: the regression gate, a run against a baseline (each a JSON report, or a run
// analysed now). The command line (cli/command_line.cpp) fills CheckOptions.
#include <string>
#include <vector>

#include "analyzer/check/compare.h"
#include "cli/analysis_flags.h"

namespace bubblescope::cli {

struct CheckOptions {
  std::string baseline;
  std::string current;
  analysis::CheckThresholds thresholds;
  std::string junit;
  AnalysisFlags analysis;
};

int runCheck(const CheckOptions& o);

}  // namespace bubblescope::cli
