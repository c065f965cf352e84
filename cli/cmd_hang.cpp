// bubblescope hang: reads a run (or asks a running job) and tells where each rank stopped and why
// the job hung.
#include "cli/cmd_hang.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <set>

#include "agent/control/client.h"
#include "agent/control/live_snapshot.h"
#include "analyzer/hang/hang_analysis.h"
#include "analyzer/hang/hang_output.h"
#include "cli/attach_session.h"
#include "cli/exit_codes.h"
#include "cli/live_run.h"
#include "cli/run_loading.h"
#include "cli/usage_error.h"

namespace bubblescope::cli {
namespace {

using control::Command;
using control::Exchange;
using control::Outcome;

// A hung job's control threads are idle, so they answer at once; a process that takes longer
// is reported as not answering rather than holding up the others' report.
constexpr auto kLiveTimeout = std::chrono::seconds(3);

// Asks every named (or every attachable) process where it is. Problems: one line each on stderr.
std::vector<LiveRank> askLive(const HangOptions& o, Problems& problem) {
  const control::TargetList list =
      o.all ? control::allTargets(environment()) : control::targetsByPid(o.pids, environment());
  for (const std::string& e : list.errors) problem(e);
  const std::vector<Exchange> replies = control::exchangeAll(
      list.targets, {control::formatCommand(Command{Command::Verb::Hang})}, kLiveTimeout);
  std::vector<LiveRank> ranks;
  std::set<std::string> runs;
  for (size_t i = 0; i < replies.size(); ++i) {
    const Exchange& x = replies[i];
    const std::string pid = "pid " + std::to_string(list.targets[i].pid);
    if (x.outcome == Outcome::Gone || x.outcome == Outcome::Stale) {
      if (!o.all) problem(pid + ": exited");
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
    r.status = control::statusFromReply(x.reply, list.targets[i].pid);
    if (!o.runId.empty() && r.status.runId != o.runId) {
      if (!o.all) problem(pid + ": belongs to run " + r.status.runId + ", not " + o.runId);
      continue;
    }
    std::string error;
    if (!control::snapshotFromReply(x.reply, &r.snapshot, &error)) {
      problem(pid + ": " + error + " (an agent of another version?)");
      continue;
    }
    runs.insert(r.status.runId);
    ranks.push_back(std::move(r));
  }
  if (o.all && ranks.empty() && problem.count == 0) {
    problem("no attachable processes" + (o.runId.empty() ? "" : " of run " + o.runId) + " (" +
            looked(list.searched) + ")");
  }
  if (runs.size() > 1) {
    std::string names;
    for (const std::string& r : runs) names += (names.empty() ? "" : ", ") + (r.empty() ? "-" : r);
    throw UsageError("processes of " + std::to_string(runs.size()) + " runs answered (" + names +
                     "): name one with --run-id");
  }
  std::sort(ranks.begin(), ranks.end(),
            [](const LiveRank& a, const LiveRank& b) { return readingOrder(a.status, b.status); });
  return ranks;
}

}  // namespace

int runHang(const HangOptions& o) {
  if (o.format != "text" && o.format != "json") {
    throw UsageError("--format '" + o.format + "': expected text or json");
  }
  const bool live = o.all || !o.pids.empty();
  if (live == !o.runs.empty() || (o.all && !o.pids.empty())) {
    throw UsageError("give a run directory (post-mortem), or --all or --pid PID (a running job)");
  }
  if (!(o.minWaitSeconds >= 0) || !std::isfinite(o.minWaitSeconds)) {
    throw UsageError("--min-wait: expected seconds, 0 or more");
  }
  if (!live && (!o.runId.empty())) throw UsageError("--run-id goes with --all or --pid");
  Problems problem;
  traces::Run run;
  if (live) {
    const std::vector<LiveRank> ranks = askLive(o, problem);
    if (ranks.empty()) return kBadInput;
    run = liveRun(ranks, static_cast<int64_t>(std::llround(o.minWaitSeconds * 1e9)));
  } else {
    run = loadRun(o.runs);
  }
  const analysis::hang::HangReport report = analysis::hang::analyzeHang(run);
  std::ofstream file;
  if (!o.output.empty()) {
    file.open(o.output, std::ios::binary);
    if (!file) throw UsageError(o.output + ": cannot be written");
  }
  std::ostream& out = o.output.empty() ? std::cout : file;
  if (o.format == "json") {
    out << analysis::hang::hangReportJson(report).dump(1) << "\n";
  } else {
    analysis::hang::printHangReport(report, out);
  }
  out.flush();
  if (!out) throw UsageError(o.output + ": cannot be written (disk full?)");
  return report.found() ? kCheckFailed : kOk;
}

}  // namespace bubblescope::cli
