#include "cli/view_attach.h"

#include <memory>
#include <set>
#include <string>
#include <thread>

#include "cli/held_steps.h"
#include "cli/live_window.h"
#include "cli/own_priority.h"
#include "cli/shown_steps.h"
#include "cli/yielding_work.h"

namespace bubblescope::cli {
namespace {

// The viewer shows a few steps of history: each agent keeps a poll and this many steps (the
// watch keeps 3), of which wholeSteps() are shown.
constexpr int kHeldSteps = 8;
// How often a poll's wait looks at the viewer's stop: closing the window waits at most this (or
// a snapshot under way, at most kSnapshotClientTimeout).
constexpr auto kStopCheck = std::chrono::milliseconds(50);

struct Follower {
  Follower(const TargetArgs& targets, double keepSeconds, const analysis::AnalyzeOptions& b)
      : window(targets, "view", keepSeconds, kHeldSteps), base(b) {}

  LiveWindow window;
  analysis::AnalyzeOptions base;
  ShownSteps shown;
  StepSilence silence{StepSilence::Clock::now()};
  // Each poll's snapshots parsed as `watch` parses them: in the idle class while the node has
  // time to spare (yielding_work.h).
  YieldingWork work{true};
  int64_t stepsShown = 0;
  bool lowered = false;
  std::set<std::string> saidBehind;  // each "fell behind" line once

  gui::LiveUpdate next(const std::atomic<bool>& stop) {
    // The viewer's follow thread polls here and analyses what it returns: it yields to the job
    // as `watch` does; the window's thread keeps its priority.
    if (!lowered) lowerThisThreadsPriority(kWatchNice);
    lowered = true;
    gui::LiveUpdate u;
    while (!stop.load()) {
      const auto wake = std::chrono::steady_clock::now() + window.interval();
      while (!stop.load() && std::chrono::steady_clock::now() < wake) {
        std::this_thread::sleep_for(kStopCheck);
      }
      if (stop.load()) break;
      LivePoll p = window.poll(base, work);
      if (!p.gone.empty() || !p.ended.empty()) {
        u.end = (p.gone.empty() ? "the watch ended: " + p.ended.front()
                                : "the job ended: " + exitedLine(p.gone)) +
                "; " + std::to_string(stepsShown) + " step(s) shown";
        return u;
      }
      u.notes = std::move(p.newProblems);
      for (const std::string& who : p.joined) u.notes.push_back(joinedLine(who));
      if (p.read) {
        const auto now = StepSilence::Clock::now();
        if (!p.steps.empty()) silence.stepRead(now);
        shown.add(p.steps);
        u.newSteps = static_cast<int64_t>(p.steps.size());
        stepsShown += u.newSteps;
        u.silence = silence.due(now, window.periodNs());
      }
      if (u.newSteps > 0 && !shown.empty()) {
        // Unknown step period: the steps of this poll, each whole when it was read.
        const size_t whole = wholeSteps(window.keepNs(), window.periodNs());
        shown.bound(whole > 0 ? whole : static_cast<size_t>(u.newSteps));
        // Only what every agent held whole when it was asked: a viewer starved between two
        // ranks' snapshots (a loaded node) finds the later one's window moved past steps the
        // earlier ones hold, and their remains are no pipeline ("missing ranks").
        const int64_t newest = shown.last();
        shown.dropBefore(heldByAll(p.heldFrom));
        if (shown.empty()) {
          const std::string behind = notHeldLine(newest, p.heldFrom, window.keepNs());
          if (saidBehind.insert(behind).second) {
            u.notes.push_back("step " + std::to_string(newest) + " not shown: " + behind);
          }
          return u;
        }
        u.firstStep = shown.first();
        u.lastStep = shown.last();
        u.run = std::move(p.run);
        u.keep = seconds(window.keepNs());
      }
      if (u.newSteps > 0 || !u.notes.empty() || !u.silence.empty()) return u;
    }
    return gui::LiveUpdate{};
  }
};

}  // namespace

std::optional<gui::LiveFeed> attachFeed(const TargetArgs& targets, double keepSeconds,
                                        const analysis::AnalyzeOptions& base) {
  auto f = std::make_shared<Follower>(targets, keepSeconds, base);
  if (!f->window.found()) return std::nullopt;
  gui::LiveFeed feed;
  feed.runId = f->window.runId().empty() ? "(unnamed)" : f->window.runId();
  feed.processes = f->window.processes();
  feed.start = [f] { f->window.start(); };
  feed.next = [f](const std::atomic<bool>& stop) { return f->next(stop); };
  return feed;
}

}  // namespace bubblescope::cli
