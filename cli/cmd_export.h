#pragma once
// `bubblescope export perfetto`: a run's analysis as Chrome-trace JSON for the Perfetto UI. The
// command line (cli/command_line.cpp) fills ExportArgs.
#include <string>
#include <vector>

namespace bubblescope::cli {

struct ExportArgs {
  std::vector<std::string> paths;
  std::string output;
  bool noClockAlign = false;
  std::vector<std::string> rules;
};

int runExportPerfetto(const ExportArgs& a);

}  // namespace bubblescope::cli
