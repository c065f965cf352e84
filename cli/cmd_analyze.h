#pragma once
// `bubblescope analyze`: a recorded (or imported) run in, the report out. The command line
// (cli/command_line.cpp) fills AnalyzeOptions.
#include <string>
#include <vector>

namespace bubblescope::cli {

struct AnalyzeOptions {
  std::vector<std::string> paths;
  std::string format;
  std::string output;
  bool noClockAlign = false;
  std::vector<std::string> rules;
  std::string steps;
};

int runAnalyze(const AnalyzeOptions& o);

}  // namespace bubblescope::cli
