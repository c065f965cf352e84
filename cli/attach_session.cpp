#include "cli/attach_session.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "cli/usage_error.h"

namespace bubblescope::cli {

namespace fs = std::filesystem;
using control::AgentStatus;
using control::Command;
using control::Exchange;
using control::Outcome;
using Clock = std::chrono::steady_clock;

void Problems::operator()(const std::string& line) {
  if (!quiet) std::cerr << "bubblescope: " << prefix << line << "\n";
  ++count;
}

void warn(const std::string& line) {
  std::cerr << "bubblescope: " << line << "\n";
}

std::string seconds(int64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", static_cast<double>(ns) / 1e9);
  std::string s = text;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s + " s";
}

std::string processLabel(const AgentStatus& s) {
  return control::processName(s.pid, s.rank);
}

control::DirEnvironment environment() {
  return control::dirEnvironmentFromProcess();
}

std::string looked(const std::vector<fs::path>& searched) {
  if (searched.empty()) {
    std::string all;
    for (const fs::path& d : control::clientRuntimeDirs(environment(), ::geteuid(), ::geteuid())) {
      all += (all.empty() ? "" : ", ") + d.string();
    }
    return "none of " + all + " exists";
  }
  std::string text = "looked in ";
  for (size_t i = 0; i < searched.size(); ++i) text += (i ? ", " : "") + searched[i].string();
  return text;
}

Session collect(const TargetArgs& a, Problems& problem) {
  if (a.all == !a.pids.empty()) throw UsageError("name the processes (PID...) or give --all");
  const control::TargetList list =
      a.all ? control::allTargets(environment()) : control::targetsByPid(a.pids, environment());
  for (const std::string& e : list.errors) problem(e);
  Session s;
  const Clock::time_point t0 = Clock::now();
  const std::vector<Exchange> replies =
      control::exchangeAll(list.targets, {control::formatCommand(Command{})}, kReplyTimeout);
  s.statusTime = Clock::now() - t0;
  for (size_t i = 0; i < replies.size(); ++i) {
    const Exchange& x = replies[i];
    const std::string pid = "pid " + std::to_string(list.targets[i].pid);
    if (x.outcome == Outcome::Answered && x.reply.ok) {
      AgentStatus st = control::statusFromReply(x.reply, list.targets[i].pid);
      if (!a.runId.empty() && st.runId != a.runId) {
        if (!a.all) problem(pid + ": belongs to run " + st.runId + ", not " + a.runId);
        continue;
      }
      s.targets.push_back(list.targets[i]);
      s.statuses.push_back(std::move(st));
    } else if (x.outcome == Outcome::Answered) {
      problem(pid + ": refused: " + x.reply.text("message"));
    } else if (x.outcome == Outcome::Gone || x.outcome == Outcome::Stale) {
      if (!a.all) problem(pid + ": exited");
    } else {
      problem(pid + ": " + x.detail);
    }
  }
  if (a.all && s.targets.empty() && problem.count == 0) {
    problem("no attachable processes" + (a.runId.empty() ? "" : " of run " + a.runId) + " (" +
            looked(list.searched) + ")");
  }
  return s;
}

}  // namespace bubblescope::cli
