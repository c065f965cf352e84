#pragma once
// What `view --attach` reads a running job through (the command line's memory windows, cli/
// view_attach.h), as callbacks so the viewer needs nothing of the agents: each update is the
// job's newest window with the whole, finished steps to show of it, and the lines to say.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "traces/model/trace.h"

namespace bubblescope::gui {

struct LiveUpdate {
  traces::Run run;                       // every rank's window (none: nothing new to show)
  int64_t firstStep = 0, lastStep = -1;  // the steps to show of it (none when last < first)
  int64_t newSteps = 0;                  // steps that finished since the last update
  std::string keep;                      // what each agent keeps now, "1.06 s"
  std::vector<std::string> notes;        // to say once each: a rank slow to answer
  std::string silence;                   // no step finished for a while: the job may hang
  std::string end;                       // how the job or the watch ended ("": it runs)
};

struct LiveFeed {
  std::string runId;
  size_t processes = 0;
  // Asks each process for its memory window; throws std::invalid_argument (one sentence) when one
  // refuses.
  std::function<void()> start;
  // Polls until there is something to say or show, or `stop` is set (then an empty update).
  std::function<LiveUpdate(const std::atomic<bool>& stop)> next;

  bool attached() const { return static_cast<bool>(next); }
};

}  // namespace bubblescope::gui
