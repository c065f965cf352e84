#pragma once
// `bubblescope record`: runs a command with the capture agent injected in every process it
// starts. The command line (cli/command_line.cpp) fills RecordArgs.
#include <string>
#include <vector>

#include "cli/watch_live.h"

namespace bubblescope::cli {

struct RecordArgs {
  std::string output;
  bool dormant = false;
  bool privateFiles = false;  // traces 0600 (and the directory 0700 if record makes it)
  std::string cuda = "on";
  double hangTimeout = 0;  // > 0: write a hang report when no rank finishes an op for this long
  bool watch = false;      // --watch: watch's line per step while the job runs
  LiveWatchOptions live;   // ... with its --prometheus, --listen, --keep and analysis flags
  std::vector<std::string> command;
};

// sawSeparator: whether `--` came before the command; it is required, so that the command's own
// options are never read as record's.
int runRecord(const RecordArgs& args, bool sawSeparator);

}  // namespace bubblescope::cli
