#pragma once
// `bubblescope engine run` (the reference engine) and the hidden `engine worker` each of its
// stage processes runs. The command line (cli/command_line.cpp) fills the options.
#include <cstdint>
#include <string>
#include <vector>

#include "reference_engine/executor/faults.h"

namespace bubblescope::cli {

struct RunOptions {
  std::string schedule;
  int p = 0;
  int m = 0;
  int v = 2;
  int steps = 3;
  std::string compute = "sleep";
  std::string opMs;
  double optimizerMs = 1.0;
  uint64_t payloadBytes = 65536;
  uint64_t seed = 1;
  std::string truth = "truth.json";
  double timeout = 600;
  engine::FaultFlags faults;
  int mlpWidth = 128;
  int mlpBatch = 32;
  double mlpLr = 4.0;
  bool quiet = false;
  bool noLabels = false;
  bool vGiven = false;  // --v was given (its default is not checked against the schedule)
};

struct WorkerOptions {
  int stage = 0;
  std::string config;
  std::string part;
  std::vector<std::string> channels;
};

int runEngineCommand(const RunOptions& o);
int runWorkerCommand(const WorkerOptions& o);

}  // namespace bubblescope::cli
