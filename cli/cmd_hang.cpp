// bubblescope hang: reads a run (or asks a running job, or reads what each node of one saved) and
// tells where each rank stopped and why the job hung.
#include "cli/cmd_hang.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <set>

#include "analyzer/hang/hang_analysis.h"
#include "analyzer/hang/hang_output.h"
#include "analyzer/hang/live_run.h"
#include "analyzer/pipeline/topology.h"
#include "cli/attach_session.h"
#include "cli/exit_codes.h"
#include "cli/hang_nodes.h"
#include "cli/input_kind.h"
#include "cli/live_answers.h"
#include "cli/live_query.h"
#include "cli/malloc_policy.h"
#include "cli/mpi_launcher.h"
#include "cli/run_loading.h"
#include "cli/usage_error.h"
#include "traces/errors.h"
#include "traces/files/output_file.h"

namespace bubblescope::cli {
namespace {

// The ranks of one run: several runs are an error until --run-id picks one.
std::vector<LiveRank> oneRun(std::vector<LiveRank> ranks) {
  std::set<std::string> runs;
  for (const LiveRank& r : ranks) runs.insert(r.status.runId);
  if (runs.size() > 1) {
    std::string names;
    for (const std::string& r : runs) names += (names.empty() ? "" : ", ") + (r.empty() ? "-" : r);
    throw UsageError("processes of " + std::to_string(runs.size()) + " runs answered (" + names +
                     "): name one with --run-id");
  }
  return ranks;
}

// Answers saved on each node (`--save`), or gathered from each over MPI, read as one job. An
// answer that cannot be read refuses its node's answers, naming the file or node.
struct Saved {
  std::vector<LiveRank> ranks;
  std::optional<double> minWaitSeconds;  // the largest the answers were taken with
  size_t answers = 0;                    // before --run-id chose
};

Saved readSaved(const std::vector<NodeAnswers>& nodes, const std::string& runId) {
  Saved saved;
  std::vector<LiveRank>& ranks = saved.ranks;
  for (const NodeAnswers& node : nodes) {
    const SavedAnswers& answers = node.answers;
    if (answers.minWaitSeconds) {
      saved.minWaitSeconds = std::max(saved.minWaitSeconds.value_or(0), *answers.minWaitSeconds);
    }
    saved.answers += answers.replies.size();
    for (const control::Reply& reply : answers.replies) {
      LiveRank r;
      const std::string which =
          reply.find("pid") ? "the answer of pid " + reply.text("pid") : "an answer without a pid";
      if (const std::string error = liveRankFromReply(reply, reply.integer("pid", 0), &r);
          !error.empty()) {
        throw traces::TraceError(node.name, which + ": " + error);
      }
      // Its grid metadata (env.BUBBLESCOPE_PP_RANK, ...) is checked here, where the file is known.
      traces::RankTrace t;
      t.file = node.name + " (" + which + ")";
      t.meta.extra = r.snapshot.env;
      analysis::checkGridMetadata(t);
      if (!runId.empty() && r.status.runId != runId) continue;
      ranks.push_back(std::move(r));
    }
  }
  return saved;
}

std::vector<NodeAnswers> readFiles(const std::vector<std::string>& files) {
  std::vector<NodeAnswers> nodes;
  for (const std::string& file : files) nodes.push_back({file, readAnswers(file)});
  return nodes;
}

void saveAnswers(const HangOptions& o, const std::vector<control::Reply>& replies,
                 const std::string& host) {
  traces::writeOutputFile(
      o.save, [&](std::ostream& out) { writeAnswersJson(replies, host, o.minWaitSeconds, out); });
}

// The answers of every node in one file, as if one node had saved them all.
void saveMerged(const HangOptions& o, const std::vector<NodeAnswers>& nodes) {
  std::vector<control::Reply> replies;
  std::string hosts;
  for (const NodeAnswers& node : nodes) {
    replies.insert(replies.end(), node.answers.replies.begin(), node.answers.replies.end());
    if (!node.answers.replies.empty()) hosts += (hosts.empty() ? "" : ",") + node.answers.host;
  }
  saveAnswers(o, replies, hosts);
}

// "a.json and b.json", "a.json, b.json and c.json".
std::string listed(const std::vector<std::string>& files) {
  std::string out;
  for (size_t i = 0; i < files.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == files.size() ? " and " : ", ") + files[i];
  }
  return out;
}

// Asks the processes where they are; keeps their answers in --save's file.
std::vector<LiveRank> askLive(const HangOptions& o, Problems& problem) {
  LiveAnswers answers = askProcesses(o.all, o.pids, o.runId, problem);
  if (o.all && answers.ranks.empty() && problem.count == 0) {
    problem("no attachable processes" + (o.runId.empty() ? "" : " of run " + o.runId) + " (" +
            looked(answers.searched) + ")");
  }
  if (!o.save.empty()) saveAnswers(o, answers.replies, hostName());
  return std::move(answers.ranks);
}

}  // namespace

int runHang(const HangOptions& o) {
  configureMalloc();  // a run held as columns, built and freed phase by phase
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
  const bool saved = !live && std::all_of(o.runs.begin(), o.runs.end(), [](const std::string& p) {
    return fileKindOf(p) == FileKind::HangAnswers;
  });
  if (!live && !saved && !o.runId.empty()) {
    throw UsageError("--run-id goes with --all, --pid or saved answers");
  }
  if (!live && !o.save.empty()) throw UsageError("--save goes with --all or --pid");
  // Started by mpirun or srun as one of several: one process per node, each asks its own.
  const LauncherWorld world = launcherWorld([](const char* name) { return std::getenv(name); });
  const bool acrossNodes = live && world.size > 1;
  if (acrossNodes && !o.pids.empty()) {
    throw UsageError("--pid names processes of one node; started by an MPI launcher (" +
                     world.variable +
                     "), hang asks every node with --all (BUBBLESCOPE_MPI=0: one node alone)");
  }
  Problems problem;
  traces::Run run;
  if (live || saved) {
    double minWait = o.minWaitSeconds;
    std::vector<LiveRank> ranks;
    if (acrossNodes) {
      const std::optional<std::vector<NodeAnswers>> nodes =
          gatherNodeAnswers(o, world.variable, world.size, problem);
      if (!nodes) return kOk;  // not rank 0: it reports for all
      // The path of `hang node-*.json`: the answers of each node, read as one job.
      ranks = readSaved(*nodes, o.runId).ranks;
      if (!o.save.empty()) saveMerged(o, *nodes);
    } else if (live) {
      ranks = askLive(o, problem);
    } else {
      Saved s = readSaved(readFiles(o.runs), o.runId);
      // The answers are judged as they were taken, unless the user says otherwise now.
      if (!o.minWaitGiven && s.minWaitSeconds) minWait = *s.minWaitSeconds;
      if (s.ranks.empty()) {
        throw UsageError(s.answers == 0
                             ? listed(o.runs) + (o.runs.size() > 1 ? " hold" : " holds") +
                                   " no saved answers"
                             : "no answer of run '" + o.runId + "' among the " +
                                   std::to_string(s.answers) + " saved in " + listed(o.runs));
      }
      ranks = std::move(s.ranks);
    }
    ranks = oneRun(std::move(ranks));
    if (ranks.empty()) return kBadInput;
    const auto minWaitNs = static_cast<int64_t>(std::llround(minWait * 1e9));
    run = analysis::hang::liveRun(ranks, minWaitNs);
  } else {
    run = loadRun(o.runs);
  }
  const analysis::hang::HangReport report = analysis::hang::analyzeHang(run);
  const auto write = [&](std::ostream& out) {
    if (o.format == "json") {
      analysis::hang::writeHangReportJson(report, out);
      out << "\n";
    } else {
      analysis::hang::printHangReport(report, out);
    }
  };
  if (o.output.empty() || o.output == "-") {
    write(std::cout);
  } else {
    // The one writer: whole or not at all, never into a FIFO or a device node.
    traces::writeOutputFile(o.output, write);
  }
  return report.found() ? kCheckFailed : kOk;
}

}  // namespace bubblescope::cli
