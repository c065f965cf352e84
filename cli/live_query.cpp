#include "cli/live_query.h"

#include <chrono>

#include "agent/control/client.h"
#include "agent/control/live_snapshot.h"

namespace bubblescope::cli {
namespace {

using control::Command;
using control::Exchange;
using control::Outcome;

// A hung job's control threads are idle, so they answer at once; a process that takes longer
// is reported as not answering rather than holding up the others' report.
constexpr auto kLiveTimeout = std::chrono::seconds(3);

}  // namespace

bool liveRankFromReply(const control::Reply& reply, int64_t pid, LiveRank* out, Problems& problem) {
  out->status = control::statusFromReply(reply, pid);
  std::string error;
  if (!control::snapshotFromReply(reply, &out->snapshot, &error)) {
    problem("pid " + std::to_string(pid) + ": " + error + " (an agent of another version?)");
    return false;
  }
  return true;
}

LiveAnswers askProcesses(bool all, const std::vector<int64_t>& pids, const std::string& runId,
                         Problems& problem) {
  const control::TargetList list =
      all ? control::allTargets(environment()) : control::targetsByPid(pids, environment());
  for (const std::string& e : list.errors) problem(e);
  const std::vector<Exchange> replies = control::exchangeAll(
      list.targets, {control::formatCommand(Command{Command::Verb::Hang})}, kLiveTimeout);
  LiveAnswers out;
  for (size_t i = 0; i < replies.size(); ++i) {
    const Exchange& x = replies[i];
    const int64_t pidNumber = list.targets[i].pid;
    const std::string pid = "pid " + std::to_string(pidNumber);
    if (x.outcome == Outcome::Gone || x.outcome == Outcome::Stale) {
      if (!all) problem(pid + ": exited");
      continue;
    }
    if (x.outcome != Outcome::Answered) {
      problem(pid + ": " + x.detail);
      continue;
    }
    if (!x.reply.ok) {
      problem(pid + ": refused: " + x.reply.text("message"));
      continue;
    }
    LiveRank r;
    if (!liveRankFromReply(x.reply, pidNumber, &r, problem)) continue;
    if (!runId.empty() && r.status.runId != runId) {
      if (!all) problem(pid + ": belongs to run " + r.status.runId + ", not " + runId);
      continue;
    }
    out.ranks.push_back(std::move(r));
    out.replies.push_back(x.reply);
    out.replies.back().fields["pid"] = std::to_string(pidNumber);
  }
  if (all && out.ranks.empty() && problem.count == 0) {
    problem("no attachable processes" + (runId.empty() ? "" : " of run " + runId) + " (" +
            looked(list.searched) + ")");
  }
  return out;
}

}  // namespace bubblescope::cli
