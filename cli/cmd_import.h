#pragma once
// `bubblescope import kineto|nsys`: other recorders' traces into a run directory. The command
// line (cli/command_line.cpp) fills ImportArgs.
#include <string>
#include <vector>

#include "traces/import/input_formats.h"

namespace bubblescope::cli {

struct ImportArgs {
  std::vector<std::string> inputs;
  std::string output;
  unsigned threads = 0;
};

int runImport(traces::import::InputFormat wanted, const ImportArgs& a);

}  // namespace bubblescope::cli
