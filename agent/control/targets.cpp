#include "agent/control/targets.h"

#include <unistd.h>

#include <algorithm>
#include <tuple>

namespace bubblescope::control {
namespace {

void addProblems(TargetList& list, const std::vector<std::string>& problems) {
  for (const std::string& p : problems) {
    if (std::find(list.errors.begin(), list.errors.end(), p) == list.errors.end()) {
      list.errors.push_back(p);
    }
  }
}

}  // namespace

TargetList targetsByPid(const std::vector<int64_t>& pids, const DirEnvironment& env) {
  TargetList list;
  const uid_t self = ::geteuid();
  for (const int64_t pid : pids) {
    const std::string name = "pid " + std::to_string(pid);
    const ProcessFacts facts = processFacts(pid);
    if (!facts.exists) {
      list.errors.push_back(name + ": no such process");
      continue;
    }
    if (!facts.visible || (facts.uid != self && self != 0)) {
      list.errors.push_back(name + ": not your process" +
                            (facts.visible
                                 ? " (it belongs to uid " + std::to_string(facts.uid) + ")"
                                 : std::string()));
      continue;
    }
    std::vector<std::string> problems;
    const auto target = findAgent(pid, env, self == 0 ? facts.uid : self, &problems);
    addProblems(list, problems);
    if (target) {
      list.targets.push_back(*target);
    } else if (facts.agentLoaded) {
      list.errors.push_back(name + " (" + facts.name +
                            "): the agent is loaded but has no control socket (no NVTX call yet, "
                            "BUBBLESCOPE_CONTROL=0, or its socket directory was refused)");
    } else {
      list.errors.push_back(name + " (" + facts.name +
                            "): not a bubblescope process (run it under 'bubblescope record "
                            "--dormant')");
    }
  }
  return list;
}

TargetList allTargets(const DirEnvironment& env) {
  TargetList list;
  const Discovery d = discoverAgents(env, ::geteuid());
  list.targets = d.targets;
  list.searched = d.searched;
  addProblems(list, d.problems);
  return list;
}

AgentStatus statusFromReply(const Reply& r, int64_t pid) {
  AgentStatus s;
  s.pid = r.integer("pid", pid);
  s.rank = r.integer("rank", -1);
  s.localRank = r.integer("local_rank", -1);
  s.worldSize = r.integer("world_size", -1);
  s.runId = r.text("run_id");
  s.command = r.text("command");
  s.state = r.text("state");
  s.window = r.text("window");
  s.windowIndex = r.integer("window_index", -1);
  s.windowStartNs = r.integer("window_start", 0);
  s.windowEndNs = r.integer("window_end", 0);
  s.windowReason = r.text("window_reason");
  s.step = r.integer("step", -1);
  s.stepNs = r.integer("step_ns", -1);
  s.stepAgeNs = r.integer("step_age_ns", -1);
  s.outputDir = r.text("output_dir");
  s.file = r.text("file");
  s.fileWritten = r.text("file_written") == "1";
  return s;
}

std::string processName(int64_t pid, int64_t rank) {
  return rank >= 0 ? "rank " + std::to_string(rank) + " (pid " + std::to_string(pid) + ")"
                   : "pid " + std::to_string(pid);
}

bool readingOrder(const AgentStatus& a, const AgentStatus& b) {
  const auto key = [](const AgentStatus& s) {
    return std::make_tuple(s.runId, s.rank < 0, s.rank, s.pid);
  };
  return key(a) < key(b);
}

}  // namespace bubblescope::control
