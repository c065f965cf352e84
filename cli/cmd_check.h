#pragma once
// `bubblescope check`: the regression gate, a run against a baseline report. The command line
// (cli/command_line.cpp) fills CheckOptions.
#include <string>
#include <vector>

#include "analyzer/check/compare.h"

namespace bubblescope::cli {

struct CheckOptions {
  std::string baseline;
  std::string current;
  analysis::CheckThresholds thresholds;
  std::string junit;
  bool noClockAlign = false;
  std::vector<std::string> rules;
  std::string steps;
};

int runCheck(const CheckOptions& o);

}  // namespace bubblescope::cli
