#include "cli/live_query.h"

#include <charconv>
#include <chrono>
#include <cstdint>

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

// What is wrong with the reply's `key`, or "" when it is absent or a whole number from lo to hi.
std::string identityProblem(const control::Reply& reply, const char* key, int64_t lo, int64_t hi) {
  const std::string* v = reply.find(key);
  if (v == nullptr) return "";
  int64_t n = 0;
  const auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
  if (ec == std::errc() && ptr == v->data() + v->size() && !v->empty() && n >= lo && n <= hi) {
    return "";
  }
  return "field '" + std::string(key) + "' = '" + *v + "' is not a whole number from " +
         std::to_string(lo) + " to " + std::to_string(hi);
}

}  // namespace

std::string liveRankFromReply(const control::Reply& reply, int64_t pid, LiveRank* out) {
  for (const char* key : {"rank", "local_rank", "world_size"}) {
    if (std::string p = identityProblem(reply, key, -1, INT32_MAX); !p.empty()) return p;
  }
  if (std::string p = identityProblem(reply, "pid", 1, INT32_MAX); !p.empty()) return p;
  out->status = control::statusFromReply(reply, pid);
  std::string error;
  if (!control::snapshotFromReply(reply, &out->snapshot, &error)) return error;
  return "";
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
    if (const std::string error = liveRankFromReply(x.reply, pidNumber, &r); !error.empty()) {
      problem(pid + ": " + error + " (an agent of another version?)");
      continue;
    }
    if (!runId.empty() && r.status.runId != runId) {
      if (!all) problem(pid + ": belongs to run " + r.status.runId + ", not " + runId);
      continue;
    }
    out.ranks.push_back(std::move(r));
    out.replies.push_back(x.reply);
    out.replies.back().fields["pid"] = std::to_string(pidNumber);
  }
  out.searched = list.searched;
  return out;
}

}  // namespace bubblescope::cli
