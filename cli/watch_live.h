#pragma once
// `bubblescope watch --all` / `--pid PID...`: the steps of a job that runs now, read from each
// process's memory window (the agent's `watch` and `snapshot` requests, docs/agent.md) with no
// trace files: every poll fetches each rank's newest seconds as a SQLite image, reads them as a
// run, and analyses each step that has finished since the last poll, alone (issue 30).
#include <atomic>
#include <cstdint>
#include <string>

#include "cli/analysis_flags.h"
#include "cli/attach_session.h"
#include "cli/own_priority.h"

namespace bubblescope::cli {

struct LiveWatchOptions {
  TargetArgs targets;
  std::string prometheus;  // --prometheus FILE
  std::string listen;      // --listen ADDR: serve /metrics while watching
  AnalysisFlags analysis;
  double keepSeconds = 0;     // what each agent keeps; 0: a poll and 3 steps (0.5 s to 60 s)
  int64_t count = 0;          // stop after this many steps (0: until the job ends or Ctrl-C)
  int64_t nice = kWatchNice;  // lowers the watch's priority by this much (--nice; 0 keeps it)
  // `record --watch`: the processes are the job's own (targets.runId), which may not be there
  // yet. Set: the watch waits for them (every rank of the job's world size, or no newer one for
  // appearSettleSeconds), leaves SIGINT and SIGTERM to `record`, and ends with one line once
  // the job has ended (record sets it when the command exits).
  const std::atomic<bool>* jobEnded = nullptr;
  double appearSettleSeconds = 3;
};

// Exit 0 when the job ended, the count was reached or the watch was interrupted; 2 when there is
// nothing to watch (no process, processes of several runs, an agent that refuses).
int watchLive(const LiveWatchOptions& o);

}  // namespace bubblescope::cli
