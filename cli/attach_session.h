#pragma once
// What `bubblescope attach`, `detach` and `ps` share: the processes a command talks to (by pid or
// every attachable one of this user, optionally of one run), each asked for its status, and how
// they are named and ordered in what the commands print.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "agent/control/client.h"
#include "agent/control/targets.h"

namespace bubblescope::cli {

inline constexpr auto kReplyTimeout = std::chrono::seconds(5);

struct TargetArgs {
  std::vector<int64_t> pids;
  bool all = false;
  std::string runId;
};

// One line on stderr about a process or directory that could not be handled (exit code 2).
struct Problems {
  int count = 0;
  bool quiet = false;  // counted, not printed (a background watcher asks again soon)
  std::string prefix;  // before each line: which node says it, when several report together
  void operator()(const std::string& line);
};

void warn(const std::string& line);
// "1.25 s": seconds without trailing zeros.
std::string seconds(int64_t ns);
// "rank 3 (pid 1234)" or "pid 1234".
std::string processLabel(const control::AgentStatus& s);
// Sorted as a person reads a job (agent/control/targets.h).
using control::readingOrder;
control::DirEnvironment environment();
// Where the control sockets were looked for, for "no attachable processes (...)".
std::string looked(const std::vector<std::filesystem::path>& searched);

// The processes a command talks to, each with its status.
struct Session {
  std::vector<control::Target> targets;
  std::vector<control::AgentStatus> statuses;
  std::chrono::nanoseconds statusTime{0};  // how long the status round took
};

// Resolves the targets and asks each for its status. Processes of other runs (--run-id) are left
// out; processes that exited meanwhile are left out silently with --all.
Session collect(const TargetArgs& a, Problems& problem);

}  // namespace bubblescope::cli
