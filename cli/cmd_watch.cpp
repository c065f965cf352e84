#include "cli/cmd_watch.h"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
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

// A live watch shares the node with the job it follows: lowered in priority, it runs when the
// job's processes do not need the CPU and never delays their wake-ups (on a 2-core machine with 8
// ranks, its polls were the job's largest cost). Its lines may come a little later on a
// saturated node; 3 s is the budget. Lowering one's own priority needs no privilege; a failure
// (a seccomp profile, say) leaves it as it was.
void lowerPriority(int64_t by) {
  if (by <= 0) return;
  errno = 0;
  const int now = getpriority(PRIO_PROCESS, 0);
  if (errno != 0) return;
  setpriority(PRIO_PROCESS, 0, std::min<int64_t>(now + by, 19));
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
  if (live) {
    lowerPriority(o.live.nice);
    return watchLive(o.live);
  }
  if (o.runs.empty()) {
    throw UsageError("watch: give a recorded run, or --all or --pid to watch a job running now");
  }
  return replay(o);
}

}  // namespace bubblescope::cli
