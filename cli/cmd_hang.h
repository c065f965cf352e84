#pragma once
// `bubblescope hang RUN`: the post-mortem of a run that hung or mismatched: where each rank
// stopped, who waits for whom, one diagnosis. `bubblescope hang --all` / `--pid PID...`: the same
// report for a job that runs (or sits hung) now, from what each process's agent answers on its
// control socket (analyzer/hang/live_run.h); `bubblescope hang FILE...` the same from answers
// each node saved (--save: cli/live_answers.h). Exit 1 when it finds a hang or mismatch, 0 when
// the run ended cleanly (or, live, nothing has waited long), 2 on bad input.
#include <cstdint>
#include <string>
#include <vector>

namespace bubblescope::cli {

struct HangOptions {
  std::vector<std::string> runs;
  bool all = false;             // live: every attachable process of this user
  std::vector<int64_t> pids;    // live: these processes
  std::string runId;            // live: only this run's processes
  double minWaitSeconds = 5;    // live: a wait counts once it has lasted this long
  bool minWaitGiven = false;    // --min-wait was given (else saved answers keep their own)
  std::string save;             // live: also keep the answers in this file (live_answers.h)
  std::string format = "text";  // text or json
  std::string output;           // file, "" = stdout
};

int runHang(const HangOptions& o);

}  // namespace bubblescope::cli
