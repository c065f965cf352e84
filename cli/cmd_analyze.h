#pragma once
// `bubblescope analyze`: a recorded (or imported) run in, the report out. The command line
// (cli/command_line.cpp) fills AnalyzeOptions.
#include <string>
#include <vector>

#include "cli/analysis_flags.h"

namespace bubblescope::cli {

struct AnalyzeOptions {
  std::vector<std::string> paths;
  std::string format;
  std::string output;
  bool detail = false;  // every op, transfer, wait and gap too (analysis::ReportStyle::detail)
  // Under MPI: each process reads the files its node has (node-local disks), not the whole run.
  bool local = false;
  AnalysisFlags analysis;
};

int runAnalyze(const AnalyzeOptions& o);

}  // namespace bubblescope::cli
