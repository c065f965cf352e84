#include "cli/watch_live.h"

#include <atomic>
#include <csignal>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

#include "cli/exit_codes.h"
#include "cli/held_steps.h"
#include "cli/live_window.h"
#include "cli/own_priority.h"
#include "cli/watch_session.h"
#include "cli/yielding_work.h"
#include "traces/files/output_file.h"

namespace bubblescope::cli {
namespace {

std::atomic<bool> g_stop{false};

void onStopSignal(int) {
  g_stop.store(true);
}

}  // namespace

int watchLive(const LiveWatchOptions& o) {
  // The thread that polls and analyses yields to the job (`watch`'s main thread; under `record
  // --watch`, record's watching thread alone), before any thread of the watch starts.
  lowerThisThreadsPriority(o.nice);
  if (!o.prometheus.empty()) traces::checkOutputPath(o.prometheus);
  // A watch reads each step once, within a poll of its end: the window holds a poll and 3 steps.
  std::optional<LiveWindow> window;
  if (o.jobEnded != nullptr) {
    Session s = waitForJob(o.targets, *o.jobEnded, o.appearSettleSeconds);
    if (s.targets.empty()) {
      std::cout << "the job ended before any of its processes could be watched\n";
      return 0;
    }
    window.emplace(std::move(s), o.targets, "watch", o.keepSeconds, 3);
  } else {
    window.emplace(o.targets, "watch", o.keepSeconds, 3);
    if (!window->found()) return kBadInput;
  }
  // Before any agent is asked: a --listen that cannot be served leaves the job untouched.
  WatchSession session(std::cout, o.prometheus, o.listen, window->runId());
  window->start();
  std::cerr << "bubblescope: watching " << window->processes() << " process(es) of run "
            << (window->runId().empty() ? "(unnamed)" : window->runId()) << ", keeping "
            << seconds(window->keepNs()) << " of each; Ctrl-C stops\n";

  if (o.jobEnded == nullptr) {  // under `record`, its own handlers pass them on to the job
    std::signal(SIGINT, onStopSignal);
    std::signal(SIGTERM, onStopSignal);
  }
  const analysis::AnalyzeOptions base = analyzeOptions(o.analysis, WarmupStep::Shown);
  StepSilence silence(StepSilence::Clock::now());
  // Each poll's reading and each step's analysis in the idle class while the node has time to
  // spare (yielding_work.h).
  YieldingWork work(o.nice > 0);
  while (!g_stop.load()) {
    std::this_thread::sleep_for(window->interval());
    // Under `record`: the job had ended before this poll (a process left behind still answers).
    const bool jobEndedBefore = o.jobEnded != nullptr && o.jobEnded->load();
    LivePoll p = window->poll(base, work);
    if (!p.gone.empty()) {
      std::cout << "the job ended: " << exitedLine(p.gone) << "; " << session.stepsWatched()
                << " step(s) watched\n";
      return 0;
    }
    if (!p.ended.empty()) {
      std::cout << "the watch ended: " << p.ended.front() << "; " << session.stepsWatched()
                << " step(s) watched\n";
      return 0;
    }
    if (jobEndedBefore) {
      std::cout << "the job ended; " << session.stepsWatched() << " step(s) watched\n";
      return 0;
    }
    for (const std::string& who : p.joined) {
      std::cerr << "bubblescope: " << joinedLine(who) << "\n";
    }
    for (const std::string& line : p.newProblems) warn("watch: " + line);
    if (!p.read) continue;
    const auto run = std::make_shared<const traces::Run>(std::move(p.run));
    for (int64_t n : p.steps) {
      // A step whose start the agents no longer held is said as such, not analysed in pieces.
      if (std::string gone = notHeldLine(n, p.heldFrom, window->keepNs()); !gone.empty()) {
        session.show(n, StepOutcome{std::nullopt, std::move(gone)});
      } else {
        session.show(n,
                     work.run<StepOutcome>([run, base, n] { return readOneStep(*run, base, n); }));
      }
      silence.stepRead(StepSilence::Clock::now());
      if (o.count > 0 && session.stepsWatched() >= o.count) return 0;
    }
    if (const std::string line = silence.due(StepSilence::Clock::now(), window->periodNs());
        !line.empty()) {
      std::cout << line << "\n";
      std::cout.flush();
    }
  }
  std::cerr << "bubblescope: watch stopped after " << session.stepsWatched() << " step(s)\n";
  return 0;
}

}  // namespace bubblescope::cli
