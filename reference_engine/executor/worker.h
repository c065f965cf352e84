#pragma once
// The body of one stage process (`bubblescope engine worker ...`, started by the launcher): it
// reads the run's configuration, connects its inherited channels, trains, and writes its part of
// the truth for the launcher to merge.
#include <filesystem>
#include <utility>
#include <vector>

namespace bubblescope::engine {

// Exit codes of a stage process, besides 0. The launcher tells a cause from a consequence by them.
inline constexpr int kStageFailedExit = 3;    // this stage failed (it printed why)
inline constexpr int kStageLostPeerExit = 4;  // a neighbouring stage ended first

struct WorkerArgs {
  int stage = 0;
  std::filesystem::path config;               // the run's configuration (config_json.h)
  std::filesystem::path part;                 // where this stage's truth part goes
  std::vector<std::pair<int, int>> channels;  // (peer stage, inherited socket fd)
};

// Runs the stage; returns the process exit code.
int runWorker(const WorkerArgs& args);

}  // namespace bubblescope::engine
