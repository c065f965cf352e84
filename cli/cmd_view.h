#pragma once
// `bubblescope view`: the desktop timeline viewer, or one frame of it as a PNG. The command
// line (cli/command_line.cpp) fills ViewOptions.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/analysis_flags.h"
#include "cli/attach_session.h"

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
  // --attach: a job running now (its processes as `watch` names them; every one without --pid).
  bool attach = false;
  TargetArgs targets;
  double keepSeconds = 0;  // --keep: what each process keeps; 0: a poll and 8 steps
  int64_t afterSteps = 0;  // --after-steps: with --screenshot, once this many steps were shown
};

int runView(const ViewOptions& o);

}  // namespace bubblescope::cli
