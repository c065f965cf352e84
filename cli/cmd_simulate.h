#pragma once
// `bubblescope simulate`: the reference simulator on a named schedule. The command line
// (cli/command_line.cpp) fills SimulateArgs; runSimulate prints the timeline and the summary.
#include <string>
#include <vector>

namespace bubblescope::cli {

struct SimulateArgs {
  std::string schedule;
  int p = 0;
  int m = 0;
  int v = 2;
  bool vGiven = false;
  std::string costs = "1,1,1";
  std::vector<std::string> stageCosts;
  double transferMs = 0;
  std::string memory = "1024,0";
  std::string format = "text";
  int width = 120;
};

int runSimulate(const SimulateArgs& a);

}  // namespace bubblescope::cli
