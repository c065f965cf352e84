#pragma once
// `bubblescope view`: the desktop timeline viewer, or one frame of it as a PNG. The command
// line (cli/command_line.cpp) fills ViewOptions.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/analysis_flags.h"

namespace bubblescope::cli {

struct ViewOptions {
  std::string run;
  std::string compare;
  std::optional<int64_t> step;
  std::optional<int64_t> compareStep;
  std::string range;
  std::string screenshot;
  std::string size = "1600x900";
  int dp = 0;
  bool expand = false;
  AnalysisFlags analysis;
};

int runView(const ViewOptions& o);

}  // namespace bubblescope::cli
