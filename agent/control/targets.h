#pragma once
// Which processes `attach`, `detach` and `ps` talk to: pids named on the command line, or every
// agent of this user, each checked (exists, is ours, has the agent, has a socket) with one line
// per problem; and what a process's `status` reply says, as a struct.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "agent/control/client.h"

namespace bubblescope::control {

struct TargetList {
  std::vector<Target> targets;
  std::vector<std::string> errors;  // one line each, naming the pid or directory ("pid 7: ...")
  std::vector<std::filesystem::path> searched;
};

// The named processes (as root: any user's, in that user's directories).
TargetList targetsByPid(const std::vector<int64_t>& pids, const DirEnvironment& env);
// Every socket of this user.
TargetList allTargets(const DirEnvironment& env);

struct AgentStatus {
  int64_t pid = 0;
  int64_t rank = -1;
  int64_t localRank = -1;
  int64_t worldSize = -1;
  std::string runId;
  std::string command;
  std::string state;   // dormant, armed, recording, off
  std::string window;  // none, armed, open, closed
  int64_t windowIndex = -1;
  int64_t windowStartNs = 0;
  int64_t windowEndNs = 0;
  std::string windowReason;
  int64_t step = -1;
  int64_t stepNs = -1;
  int64_t stepAgeNs = -1;
  std::string outputDir;
  std::string file;
  bool fileWritten = false;
};
AgentStatus statusFromReply(const Reply& reply, int64_t pid);

// "rank 3", or "pid 1234" for a process without a rank: how output names a process.
std::string processName(int64_t pid, int64_t rank);
// Sorted as a person reads a job: by run, rank (ranked processes first), pid.
bool readingOrder(const AgentStatus& a, const AgentStatus& b);

}  // namespace bubblescope::control
