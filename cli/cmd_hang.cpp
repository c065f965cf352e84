// bubblescope hang: reads a run (or asks a running job, or reads what each node of one saved) and
// tells where each rank stopped and why the job hung.
#include "cli/cmd_hang.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <set>

#include "analyzer/hang/hang_analysis.h"
#include "analyzer/hang/hang_output.h"
#include "analyzer/hang/live_run.h"
#include "analyzer/pipeline/topology.h"
#include "cli/attach_session.h"
#include "cli/exit_codes.h"
#include "cli/live_answers.h"
#include "cli/live_query.h"
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

std::string hostName() {
  char name[256] = {};
  return ::gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string();
}

// Answers saved on each node (`--save`), read as one job. A saved file is input: an answer it
// holds that cannot be read refuses the file, naming it.
std::vector<LiveRank> readSaved(const HangOptions& o) {
  std::vector<LiveRank> ranks;
  for (const std::string& file : o.runs) {
    for (const control::Reply& reply : readAnswers(file)) {
      LiveRank r;
      const std::string which =
          reply.find("pid") ? "the answer of pid " + reply.text("pid") : "an answer without a pid";
      if (const std::string error = liveRankFromReply(reply, reply.integer("pid", 0), &r);
          !error.empty()) {
        throw traces::TraceError(file, which + ": " + error);
      }
      // Its grid metadata (env.BUBBLESCOPE_PP_RANK, ...) is checked here, where the file is known.
      traces::RankTrace t;
      t.file = file + " (" + which + ")";
      t.meta.extra = r.snapshot.env;
      analysis::checkGridMetadata(t);
      if (!o.runId.empty() && r.status.runId != o.runId) continue;
      ranks.push_back(std::move(r));
    }
  }
  return ranks;
}

// Asks the processes where they are; keeps their answers in --save's file.
std::vector<LiveRank> askLive(const HangOptions& o, Problems& problem) {
  LiveAnswers answers = askProcesses(o.all, o.pids, o.runId, problem);
  if (!o.save.empty()) traces::writeOutputFile(o.save, answersJson(answers.replies, hostName()));
  return std::move(answers.ranks);
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
  const bool saved = !live && std::all_of(o.runs.begin(), o.runs.end(),
                                          [](const std::string& p) { return isAnswersFile(p); });
  if (!live && !saved && !o.runId.empty()) {
    throw UsageError("--run-id goes with --all, --pid or saved answers");
  }
  if (!live && !o.save.empty()) throw UsageError("--save goes with --all or --pid");
  Problems problem;
  traces::Run run;
  if (live || saved) {
    const std::vector<LiveRank> ranks = oneRun(live ? askLive(o, problem) : readSaved(o));
    if (ranks.empty()) return kBadInput;
    const auto minWaitNs = static_cast<int64_t>(std::llround(o.minWaitSeconds * 1e9));
    run = analysis::hang::liveRun(ranks, minWaitNs);
  } else {
    run = loadRun(o.runs);
  }
  const analysis::hang::HangReport report = analysis::hang::analyzeHang(run);
  const auto write = [&](std::ostream& out) {
    if (o.format == "json") {
      out << analysis::hang::hangReportJson(report).dump(1) << "\n";
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
