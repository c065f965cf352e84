#pragma once
// Starts one process per stage, as torchrun does, connected by socket pairs the processes
// inherit; watches them; and, when one fails, the user interrupts or the watchdog fires, stops
// all of them so that nothing is left behind. Knows nothing of schedules or training.
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace bubblescope::engine {

struct StageLaunch {
  int stages = 1;
  std::vector<std::pair<int, int>> channelPairs;  // (a, b): one socket pair between a and b
  // The argv of stage s, given its ends of the channels as (peer, fd). argv[0] is a path.
  std::function<std::vector<std::string>(int stage, const std::vector<std::pair<int, int>>&)> argv;
  // Variables ("NAME=value") stage s gets on top of the launcher's environment.
  std::function<std::vector<std::string>(int stage)> environment;
  double timeoutSeconds = 600;
};

struct LaunchOutcome {
  bool ok = false;
  std::string failure;    // one line, when !ok
  std::vector<int> pids;  // by stage
};

// Blocks until every stage has ended. SIGCHLD, SIGINT, SIGTERM and SIGHUP are blocked in the
// calling thread meanwhile and read from a signalfd; stages get PR_SET_PDEATHSIG, which follows
// the forking thread, so call it from a thread that outlives the run (the CLI's main thread).
LaunchOutcome launchStages(const StageLaunch& launch);

}  // namespace bubblescope::engine
