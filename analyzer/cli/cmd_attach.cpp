// `bubblescope ps`, `attach` and `detach`: capture on demand. Every process started under
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
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "agent/control/attach_plan.h"
#include "agent/control/client.h"
#include "agent/control/targets.h"
#include "analyzer/cli/command.h"
#include "analyzer/cli/exit_codes.h"

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

constexpr auto kReplyTimeout = std::chrono::seconds(5);
constexpr auto kWaitPoll = std::chrono::milliseconds(200);
constexpr int64_t kMinLeadNs = 200'000'000;  // how far ahead the first aligned step must begin
constexpr int kWaitMisses = 10;              // status polls a waited-on process may miss in a row

struct TargetArgs {
  std::vector<int64_t> pids;
  bool all = false;
  std::string runId;
};

struct AttachArgs {
  TargetArgs targets;
  int64_t steps = 0;
  double duration = 0;
  bool wait = false;
};

struct PsArgs {
  std::string runId;
  bool json = false;
};

// One line on stderr about a process or directory that could not be handled (exit code 2).
struct Problems {
  int count = 0;
  void operator()(const std::string& line) {
    std::cerr << "bubblescope: " << line << "\n";
    ++count;
  }
};

void warn(const std::string& line) {
  std::cerr << "bubblescope: " << line << "\n";
}

std::string seconds(int64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", static_cast<double>(ns) / 1e9);
  std::string s = text;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s + " s";
}

std::string stepRange(int64_t first, int64_t count) {
  return count == 1 ? "step " + std::to_string(first)
                    : "steps " + std::to_string(first) + "-" + std::to_string(first + count - 1);
}

std::string name(const AgentStatus& s) {
  return control::processName(s.pid, s.rank);
}

// Sorted as a person reads a job: by run, rank (ranked processes first), pid.
bool readingOrder(const AgentStatus& a, const AgentStatus& b) {
  const auto key = [](const AgentStatus& s) {
    return std::make_tuple(s.runId, s.rank < 0, s.rank, s.pid);
  };
  return key(a) < key(b);
}

control::DirEnvironment environment() {
  return control::dirEnvironmentFromProcess();
}

std::string looked(const std::vector<fs::path>& searched) {
  if (searched.empty()) {
    std::string all;
    for (const fs::path& d : control::clientRuntimeDirs(environment(), ::geteuid(), ::geteuid())) {
      all += (all.empty() ? "" : ", ") + d.string();
    }
    return "none of " + all + " exists";
  }
  std::string text = "looked in ";
  for (size_t i = 0; i < searched.size(); ++i) text += (i ? ", " : "") + searched[i].string();
  return text;
}

// The processes a command talks to, each with its status.
struct Session {
  std::vector<Target> targets;
  std::vector<AgentStatus> statuses;
  std::chrono::nanoseconds statusTime{0};  // how long the status round took
};

// Resolves the targets and asks each for its status. Processes of other runs (--run-id) are left
// out; processes that exited meanwhile are left out silently with --all.
Session collect(const TargetArgs& a, Problems& problem) {
  if (a.all == !a.pids.empty()) throw UsageError("name the processes (PID...) or give --all");
  const control::TargetList list =
      a.all ? control::allTargets(environment()) : control::targetsByPid(a.pids, environment());
  for (const std::string& e : list.errors) problem(e);
  Session s;
  const Clock::time_point t0 = Clock::now();
  const std::vector<Exchange> replies =
      control::exchangeAll(list.targets, {control::formatCommand(Command{})}, kReplyTimeout);
  s.statusTime = Clock::now() - t0;
  for (size_t i = 0; i < replies.size(); ++i) {
    const Exchange& x = replies[i];
    const std::string pid = "pid " + std::to_string(list.targets[i].pid);
    if (x.outcome == Outcome::Answered && x.reply.ok) {
      AgentStatus st = control::statusFromReply(x.reply, list.targets[i].pid);
      if (!a.runId.empty() && st.runId != a.runId) {
        if (!a.all) problem(pid + ": belongs to run " + st.runId + ", not " + a.runId);
        continue;
      }
      s.targets.push_back(list.targets[i]);
      s.statuses.push_back(std::move(st));
    } else if (x.outcome == Outcome::Answered) {
      problem(pid + ": refused: " + x.reply.text("message"));
    } else if (x.outcome == Outcome::Gone || x.outcome == Outcome::Stale) {
      if (!a.all) problem(pid + ": exited");
    } else {
      problem(pid + ": " + x.detail);
    }
  }
  if (a.all && s.targets.empty() && problem.count == 0) {
    problem("no attachable processes" + (a.runId.empty() ? "" : " of run " + a.runId) + " (" +
            looked(list.searched) + ")");
  }
  return s;
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
    warn(name(s.status) + " has no step markers ('step N' ranges): recording it for " +
         seconds(p.command.durationNs) + " instead of " + std::to_string(steps) + " steps");
  } else if (p.kind == PlannedStart::Kind::FarBehind) {
    warn(name(s.status) + " is at step " + std::to_string(s.status.step) + ", " +
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
    std::cout << name(s.status) << ": " << line;
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
          problem(name(s.status) + ": stopped answering while waited on (" +
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
        std::cout << name(s.status) << ": its window was stopped before it opened (detach?)\n";
      }
    }
  }
  for (const auto& [dir, files] : written) {
    std::cout << "traces in " << dir << " (" << files << (files == 1 ? " file" : " files") << ")\n";
  }
}

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
      problem(name(st) + ": already " +
              (st.state == "armed" ? "waiting for its window to open" : "recording") +
              " ('bubblescope detach " + std::to_string(st.pid) + "' stops it)");
    } else if (st.state == "off") {
      problem(name(st) + ": capture is off in this process (its output failed; see its stderr)");
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
      problem(name(st) + ": " + x.detail);
      continue;
    }
    if (!x.reply.ok) {
      problem(name(st) + ": refused: " + x.reply.text("message"));
      continue;
    }
    Started s;
    s.target = targets[k];
    s.status = st;
    s.plan = plans[k];
    s.windowIndex = x.reply.integer("window_index", -1);
    s.file = x.reply.text("file");
    if (x.reply.text("late") == "1") {
      warn(name(st) + " was already at step " + x.reply.text("step") + " when told to start at " +
           std::to_string(plans[k].firstStep) + ": it starts at its next step, not with the " +
           "other ranks");
    }
    started.push_back(std::move(s));
  }
  std::sort(started.begin(), started.end(),
            [](const Started& x, const Started& y) { return readingOrder(x.status, y.status); });
  for (const Started& s : started) warnFallback(s, a.steps);
  for (const Started& s : started) {
    std::cout << name(s.status) << ": " << whatStarts(s) << " -> " << s.file << "\n";
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
      problem(name(st) + ": " + x.detail);
      continue;
    }
    if (!x.reply.ok) {
      problem(name(st) + ": refused: " + x.reply.text("message"));
      continue;
    }
    const std::string stopped = x.reply.text("stopped");
    std::string line = stopped == "window"  ? "stopped recording -> " + x.reply.text("file")
                       : stopped == "armed" ? "cancelled the window that was waiting for its step"
                                            : "was not recording";
    done.emplace_back(st, line);
  }
  std::sort(done.begin(), done.end(),
            [](const auto& x, const auto& y) { return readingOrder(x.first, y.first); });
  for (const auto& [st, line] : done) std::cout << name(st) << ": " << line << "\n";
  return problem.count > 0 ? kBadInput : kOk;
}

// ---- ps --------------------------------------------------------------------------------------

std::string orDash(int64_t v) {
  return v >= 0 ? std::to_string(v) : "-";
}

int runPs(const PsArgs& a) {
  Problems problem;
  const control::TargetList list = control::allTargets(environment());
  for (const std::string& e : list.errors) problem(e);
  const auto replies =
      control::exchangeAll(list.targets, {control::formatCommand(Command{})}, kReplyTimeout);
  std::vector<AgentStatus> rows;
  for (size_t i = 0; i < replies.size(); ++i) {
    const Exchange& x = replies[i];
    AgentStatus st;
    st.pid = list.targets[i].pid;
    if (x.outcome == Outcome::Gone || x.outcome == Outcome::Stale) continue;
    if (x.outcome == Outcome::Answered && x.reply.ok) {
      st = control::statusFromReply(x.reply, st.pid);
    } else {
      st.state = x.outcome == Outcome::Answered ? "refused" : control::outcomeWords(x.outcome);
    }
    if (!a.runId.empty() && st.runId != a.runId) continue;
    rows.push_back(std::move(st));
  }
  std::sort(rows.begin(), rows.end(), readingOrder);

  if (a.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const AgentStatus& st : rows) {
      nlohmann::json j = {{"pid", st.pid},
                          {"rank", st.rank},
                          {"local_rank", st.localRank},
                          {"world_size", st.worldSize},
                          {"run_id", st.runId},
                          {"state", st.state},
                          {"step", st.step},
                          {"window", st.window},
                          {"file", st.file},
                          {"command", st.command}};
      j["step_seconds"] = st.stepNs > 0 ? nlohmann::json(st.stepNs / 1e9) : nlohmann::json();
      out.push_back(std::move(j));
    }
    std::cout << out.dump(2) << "\n";
    return problem.count > 0 ? kBadInput : kOk;
  }
  if (rows.empty() && problem.count == 0) {
    std::cerr << "bubblescope: no attachable processes"
              << (a.runId.empty() ? "" : " of run " + a.runId) << " (" << looked(list.searched)
              << ")\n";
    return kOk;
  }
  if (rows.empty()) return kBadInput;
  std::vector<std::vector<std::string>> table = {
      {"PID", "RANK", "STATE", "STEP", "STEP TIME", "RUN ID", "OUTPUT FILE", "COMMAND"}};
  for (const AgentStatus& st : rows) {
    std::string command = st.command.size() > 60 ? st.command.substr(0, 57) + "..." : st.command;
    table.push_back({std::to_string(st.pid), orDash(st.rank), st.state, orDash(st.step),
                     st.stepNs > 0 ? seconds(st.stepNs) : "-", st.runId.empty() ? "-" : st.runId,
                     st.file.empty() ? "-" : st.file, command});
  }
  std::vector<size_t> width(table[0].size(), 0);
  for (const auto& row : table) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  for (const auto& row : table) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(width[c] - row[c].size() + 2, ' ');
    }
    std::cout << line << "\n";
  }
  return problem.count > 0 ? kBadInput : kOk;
}

void addTargetOptions(CLI::App* sub, TargetArgs& t) {
  sub->add_option("pid", t.pids, "Process ids (see 'bubblescope ps')");
  sub->add_flag("--all", t.all, "Every attachable process of this user");
  sub->add_option("--run-id", t.runId, "Only processes of this run (BUBBLESCOPE_RUN_ID)");
}

}  // namespace

void addAttachCommands(CLI::App& app, Action& action) {
  auto* attach = app.add_subcommand(
      "attach", "Start capture in running processes (started with 'bubblescope record --dormant')");
  auto a = std::make_shared<AttachArgs>();
  addTargetOptions(attach, a->targets);
  attach->add_option("--steps", a->steps, "Capture N steps, the same steps on every rank")
      ->check(CLI::PositiveNumber);
  attach
      ->add_option("--duration", a->duration,
                   "Capture this many seconds, from the same step on every rank")
      ->check(CLI::PositiveNumber);
  attach->add_flag("--wait", a->wait,
                   "Wait until every window closed, then say where the files are");
  attach->footer("Example: bubblescope attach --all --steps 2 --wait");
  attach->callback([a, &action] { action = [a] { return runAttach(*a); }; });

  auto* detach = app.add_subcommand("detach", "Stop capture started by 'bubblescope attach'");
  auto d = std::make_shared<TargetArgs>();
  addTargetOptions(detach, *d);
  detach->callback([d, &action] { action = [d] { return runDetach(*d); }; });

  auto* ps = app.add_subcommand("ps", "List the processes of this user that 'attach' can reach");
  auto p = std::make_shared<PsArgs>();
  ps->add_option("--run-id", p->runId, "Only processes of this run");
  ps->add_flag("--json", p->json, "One JSON array, an object per process");
  ps->callback([p, &action] { action = [p] { return runPs(*p); }; });
}

}  // namespace bubblescope::cli
