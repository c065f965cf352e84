#pragma once
// `bubblescope ps`: the processes of this user that `attach` can reach. The command line
// (cli/command_line.cpp) fills PsArgs.
#include <string>

namespace bubblescope::cli {

struct PsArgs {
  std::string runId;
  bool json = false;
};

int runPs(const PsArgs& a);

}  // namespace bubblescope::cli
