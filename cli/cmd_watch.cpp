#include "cli/cmd_watch.h"

#include <iostream>

#include "analyzer/result/errors.h"
#include "cli/exit_codes.h"
#include "cli/run_loading.h"
#include "cli/usage_error.h"
#include "cli/watch_session.h"
#include "traces/files/output_file.h"

namespace bubblescope::cli {
namespace {

int replay(const WatchOptions& o) {
  if (!o.live.prometheus.empty()) traces::checkOutputPath(o.live.prometheus);
  const traces::Run run = loadRun(o.runs);
  const analysis::AnalyzeOptions base = analyzeOptions(o.live.analysis, WarmupStep::Shown);
  WatchSession session(std::cout, o.live.prometheus, o.live.listen,
                       run.ranks.empty() ? std::string() : run.ranks.front().meta.runId);
  // Every step the run holds, the warm-up included: a watch reads each as it comes.
  const std::vector<int64_t> steps = stepNumbers(run, base);
  if (steps.empty()) {
    throw analysis::AnalysisInputError(run.dir.string() +
                                       ": no pipeline found, so there are no steps to watch");
  }
  for (int64_t number : steps) session.read(run, base, number);
  return kOk;
}

}  // namespace

int runWatch(const WatchOptions& o) {
  const bool live = o.live.targets.all || !o.live.targets.pids.empty();
  if (live && !o.runs.empty()) {
    throw UsageError("watch: give a recorded run or --all/--pid for a running job, not both");
  }
  if (!live && (!o.live.targets.runId.empty() || o.live.keepSeconds > 0)) {
    throw UsageError("watch: --run-id and --keep are for a running job (--all or --pid)");
  }
  if (live) return watchLive(o.live);
  if (o.runs.empty()) {
    throw UsageError("watch: give a recorded run, or --all or --pid to watch a job running now");
  }
  return replay(o);
}

}  // namespace bubblescope::cli
