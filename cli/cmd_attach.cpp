// `bubblescope attach` and `detach`: capture on demand. Every process started under
// `bubblescope record --dormant` (or with the agent by hand) listens on a control socket; these
// commands find those of this user, start windows aligned on the same steps across the ranks of
// a run, stop them, and say per process what happened (docs/agent.md, "Attach").
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "agent/control/attach_plan.h"
#include "agent/control/client.h"
#include "agent/control/targets.h"
#include "cli/attach_session.h"
#include "cli/cmd_attach.h"
#include "cli/exit_codes.h"
#include "cli/usage_error.h"

namespace bubblescope::cli {
namespace {

namespace fs = std::filesystem;
using control::AgentStatus;
using control::Command;
using control::Exchange;
using control::Outcome;
using control::PlannedStart;
using control::Target;
using Clock = std::chrono::steady_clock;

constexpr auto kWaitPoll = std::chrono::milliseconds(200);
constexpr int64_t kMinLeadNs = 200'000'000;  // how far ahead the first aligned step must begin
constexpr int kWaitMisses = 10;              // status polls a waited-on process may miss in a row

std::string stepRange(int64_t first, int64_t count) {
  return count == 1 ? "step " + std::to_string(first)
                    : "steps " + std::to_string(first) + "-" + std::to_string(first + count - 1);
}

// ---- attach ----------------------------------------------------------------------------------

struct Started {
  Target target;
  AgentStatus status;  // before the start
  PlannedStart plan;
  int64_t windowIndex = -1;
  std::string file;
  bool done = false;
  int misses = 0;
};

std::string whatStarts(const Started& s) {
  const PlannedStart& p = s.plan;
  const std::string now = " (now at step " + std::to_string(s.status.step) + ")";
  switch (p.kind) {
    case PlannedStart::Kind::Steps:
      return stepRange(p.firstStep, p.command.steps) + now;
    case PlannedStart::Kind::DurationAtStep:
      return seconds(p.command.durationNs) + " from step " + std::to_string(p.firstStep) + now;
    case PlannedStart::Kind::DurationNow:
      return seconds(p.command.durationNs) + " from now (no step markers)";
    case PlannedStart::Kind::NoStepMarkers:
      return seconds(p.command.durationNs) + " from now (no step markers: a duration instead)";
    case PlannedStart::Kind::FarBehind:
      return seconds(p.command.durationNs) + " from now (" + std::to_string(p.lag) +
             " steps behind its run)";
  }
  return "";
}

void warnFallback(const Started& s, int64_t steps) {
  const PlannedStart& p = s.plan;
  if (p.kind == PlannedStart::Kind::NoStepMarkers) {
    warn(processLabel(s.status) + " has no step markers ('step N' ranges): recording it for " +
         seconds(p.command.durationNs) + " instead of " + std::to_string(steps) + " steps");
  } else if (p.kind == PlannedStart::Kind::FarBehind) {
    warn(processLabel(s.status) + " is at step " + std::to_string(s.status.step) + ", " +
         std::to_string(p.lag) +
         " steps behind the other ranks of its run: recording it from now " + "for " +
         seconds(p.command.durationNs) + " instead of waiting");
  }
}

// Polls the started processes until each window closed (or its process exited).
void waitForWindows(std::vector<Started>& started, Problems& problem) {
  std::map<std::string, int> written;  // directory → files
  auto finish = [&](Started& s, const std::string& line, const std::string& file) {
    s.done = true;
    std::cout << processLabel(s.status) << ": " << line;
    std::error_code ec;
    if (!file.empty() && fs::exists(file, ec)) {
      std::cout << " -> " << file << "\n";
      ++written[fs::path(file).parent_path().string()];
    } else {
      std::cout << ", nothing recorded (no events in the window)\n";
    }
  };
  for (;;) {
    std::vector<Started*> pending;
    for (Started& s : started) {
      if (!s.done) pending.push_back(&s);
    }
    if (pending.empty()) break;
    std::this_thread::sleep_for(kWaitPoll);
    std::vector<Target> targets;
    for (const Started* s : pending) targets.push_back(s->target);
    const auto replies =
        control::exchangeAll(targets, {control::formatCommand(Command{})}, kReplyTimeout);
    for (size_t i = 0; i < pending.size(); ++i) {
      Started& s = *pending[i];
      const Exchange& x = replies[i];
      if (x.outcome == Outcome::Gone || x.outcome == Outcome::Stale) {
        finish(s, "exited (its window closed with it)", s.file);
        continue;
      }
      if (x.outcome != Outcome::Answered || !x.reply.ok) {
        if (++s.misses >= kWaitMisses) {
          s.done = true;
          problem(processLabel(s.status) + ": stopped answering while waited on (" +
                  (x.outcome == Outcome::Answered ? x.reply.text("message") : x.detail) + ")");
        }
        continue;
      }
      s.misses = 0;
      const AgentStatus st = control::statusFromReply(x.reply, s.target.pid);
      const std::string file = st.fileWritten ? st.file : s.file;
      if (st.windowIndex > s.windowIndex ||
          (st.windowIndex == s.windowIndex && st.window == "closed")) {
        std::string what = "done";
        if (st.windowIndex == s.windowIndex && st.windowEndNs > st.windowStartNs) {
          what += ", " + seconds(st.windowEndNs - st.windowStartNs);
        }
        if (s.plan.kind == PlannedStart::Kind::Steps) {
          what += ", " + stepRange(s.plan.firstStep, s.plan.command.steps);
        }
        finish(s, what, file);
      } else if (st.windowIndex < s.windowIndex || st.window == "none") {
        s.done = true;
        std::cout << processLabel(s.status)
                  << ": its window was stopped before it opened (detach?)\n";
      }
    }
  }
  for (const auto& [dir, files] : written) {
    std::cout << "traces in " << dir << " (" << files << (files == 1 ? " file" : " files") << ")\n";
  }
}

}  // namespace

int runAttach(const AttachArgs& a) {
  if ((a.steps > 0) == (a.duration > 0)) {
    throw UsageError("attach needs --steps N or --duration SECONDS (one of them)");
  }
  if (a.duration > 0 && (!std::isfinite(a.duration) || a.duration > 366.0 * 86400)) {
    throw UsageError("--duration must be a number of seconds, at most a year");
  }
  Problems problem;
  const Session session = collect(a.targets, problem);

  // Processes that record already are reported, not planned.
  std::vector<size_t> ready;
  for (size_t i = 0; i < session.statuses.size(); ++i) {
    const AgentStatus& st = session.statuses[i];
    if (st.state == "recording" || st.state == "armed") {
      problem(processLabel(st) + ": already " +
              (st.state == "armed" ? "waiting for its window to open" : "recording") +
              " ('bubblescope detach " + std::to_string(st.pid) + "' stops it)");
    } else if (st.state == "off") {
      problem(processLabel(st) +
              ": capture is off in this process (its output failed; see its stderr)");
    } else {
      ready.push_back(i);
    }
  }
  std::vector<control::RankState> ranks;
  for (const size_t i : ready) {
    const AgentStatus& st = session.statuses[i];
    ranks.push_back({st.pid, st.runId, st.step, st.stepNs, st.stepAgeNs});
  }
  control::AttachRequest request;
  request.steps = a.steps;
  request.durationNs = static_cast<int64_t>(std::llround(a.duration * 1e9));
  // The start round takes about as long as the status round did; leave room for a slow one.
  request.leadNs = std::max<int64_t>(kMinLeadNs, 3 * session.statusTime.count());
  const std::vector<PlannedStart> plans = control::planAttach(ranks, request);

  std::vector<Target> targets;
  std::vector<std::string> lines;
  for (size_t k = 0; k < ready.size(); ++k) {
    targets.push_back(session.targets[ready[k]]);
    lines.push_back(control::formatCommand(plans[k].command));
  }
  const std::vector<Exchange> replies = control::exchangeAll(targets, lines, kReplyTimeout);

  std::vector<Started> started;
  for (size_t k = 0; k < ready.size(); ++k) {
    const AgentStatus& st = session.statuses[ready[k]];
    const Exchange& x = replies[k];
    if (x.outcome != Outcome::Answered) {
      problem(processLabel(st) + ": " + x.detail);
      continue;
    }
    if (!x.reply.ok) {
      problem(processLabel(st) + ": refused: " + x.reply.text("message"));
      continue;
    }
    Started s;
    s.target = targets[k];
    s.status = st;
    s.plan = plans[k];
    s.windowIndex = x.reply.integer("window_index", -1);
    s.file = x.reply.text("file");
    if (x.reply.text("late") == "1") {
      warn(processLabel(st) + " was already at step " + x.reply.text("step") +
           " when told to start at " + std::to_string(plans[k].firstStep) +
           ": it starts at its next step, not with the " + "other ranks");
    }
    started.push_back(std::move(s));
  }
  std::sort(started.begin(), started.end(),
            [](const Started& x, const Started& y) { return readingOrder(x.status, y.status); });
  for (const Started& s : started) warnFallback(s, a.steps);
  for (const Started& s : started) {
    std::cout << processLabel(s.status) << ": " << whatStarts(s) << " -> " << s.file << "\n";
  }
  std::cout << std::flush;
  if (a.wait && !started.empty()) waitForWindows(started, problem);
  return problem.count > 0 ? kBadInput : kOk;
}

// ---- detach ----------------------------------------------------------------------------------

int runDetach(const TargetArgs& a) {
  Problems problem;
  const Session session = collect(a, problem);
  const auto replies = control::exchangeAll(
      session.targets, {control::formatCommand(Command{Command::Verb::Stop})}, kReplyTimeout);
  std::vector<std::pair<AgentStatus, std::string>> done;
  for (size_t i = 0; i < replies.size(); ++i) {
    const AgentStatus& st = session.statuses[i];
    const Exchange& x = replies[i];
    if (x.outcome != Outcome::Answered) {
      problem(processLabel(st) + ": " + x.detail);
      continue;
    }
    if (!x.reply.ok) {
      problem(processLabel(st) + ": refused: " + x.reply.text("message"));
      continue;
    }
    const std::string stopped = x.reply.text("stopped");
    std::string line = stopped == "window"  ? "stopped recording -> " + x.reply.text("file")
                       : stopped == "armed" ? "cancelled the window that was waiting for its step"
                       : stopped == "watch" ? "ended its memory window (watch); no file"
                                            : "was not recording";
    done.emplace_back(st, line);
  }
  std::sort(done.begin(), done.end(),
            [](const auto& x, const auto& y) { return readingOrder(x.first, y.first); });
  for (const auto& [st, line] : done) std::cout << processLabel(st) << ": " << line << "\n";
  return problem.count > 0 ? kBadInput : kOk;
}

}  // namespace bubblescope::cli
