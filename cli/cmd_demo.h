#pragma once
// `bubblescope demo`: the reference engine recorded with injected faults, analysed and reported.
// The command line (cli/command_line.cpp) fills DemoOptions.
#include <string>

namespace bubblescope::cli {

struct DemoOptions {
  std::string output = "bubblescope-demo";
  std::string schedule = "1f1b";
  int p = 4;
  int m = 8;
  int steps = 4;
  bool faults = true;
};

int runDemo(const DemoOptions& o);

}  // namespace bubblescope::cli
