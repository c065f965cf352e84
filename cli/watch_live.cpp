#include "cli/watch_live.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <iostream>
#include <set>
#include <thread>

#include "agent/control/client.h"
#include "analyzer/analyze.h"
#include "analyzer/result/errors.h"
#include "cli/exit_codes.h"
#include "cli/usage_error.h"
#include "cli/watch_session.h"
#include "traces/errors.h"
#include "traces/files/output_file.h"
#include "traces/sqlite/sqlite_db.h"
#include "traces/sqlite/trace_reader.h"

namespace bubblescope::cli {
namespace {

using Clock = std::chrono::steady_clock;

std::atomic<bool> g_stop{false};

void onStopSignal(int) {
  g_stop.store(true);
}

// The job's step period as its agents count steps (every 100 ms), the slowest rank's; -1 unknown.
int64_t stepPeriodNs(const Session& s) {
  int64_t period = -1;
  for (const control::AgentStatus& st : s.statuses) period = std::max(period, st.stepNs);
  return period;
}

// How often to ask: once a step, but at most four times a second (a poll reads every rank's
// window, and SQLite parses each image's schema: a job of 100 ms steps is read three steps at a
// time) and at least once a second. A finished step is read within a poll of its end.
std::chrono::milliseconds pollInterval(int64_t period) {
  return std::chrono::milliseconds(
      std::clamp<int64_t>(period > 0 ? period / 1'000'000 : 500, 500, 1000));
}

// The step period the snapshots' replies give (each agent's step counter), the slowest rank's;
// -1 while any has none.
int64_t replyPeriodNs(const std::vector<control::Exchange>& answers) {
  int64_t period = -1;
  for (const control::Exchange& a : answers) {
    if (a.outcome != control::Outcome::Answered || !a.reply.ok) continue;
    const int64_t p = a.reply.integer("step_ns", -1);
    if (p <= 0) return -1;
    period = std::max(period, p);
  }
  return period;
}

// What each agent keeps: the steps of a poll and three more (half a second to a minute). A step
// read at a poll finished before it (it is older than the step the slowest rank is in) and since
// the poll before; it began at most a step earlier still; a step more covers ranks whose replies
// drift apart. Little more: each poll reads all of it.
int64_t keepNs(const LiveWatchOptions& o, int64_t period) {
  if (o.keepSeconds > 0) return static_cast<int64_t>(o.keepSeconds * 1e9);
  if (period <= 0) return 5'000'000'000;
  const int64_t poll = pollInterval(period).count() * 1'000'000;
  return std::clamp<int64_t>(poll + 3 * period, 500'000'000, 60'000'000'000);
}

std::string runIdOf(const Session& s) {
  std::set<std::string> ids;
  for (const control::AgentStatus& st : s.statuses) ids.insert(st.runId);
  if (ids.size() > 1) {
    std::string list;
    for (const std::string& id : ids) list += (list.empty() ? "" : ", ") + id;
    throw UsageError("watch: the processes belong to " + std::to_string(ids.size()) + " runs (" +
                     list + "): give --run-id to watch one");
  }
  return ids.empty() ? std::string() : *ids.begin();
}

// Each answered image read as one rank of a run, ordered by rank. `gone`: processes that exited;
// `running`: each answering process's step counter (the `step N` range it is in; -1 unknown).
traces::Run runOf(const Session& s, const std::vector<control::Exchange>& answers,
                  std::vector<std::string>& gone, std::vector<std::string>& problems,
                  std::vector<std::string>& ended, std::vector<int64_t>& running) {
  traces::Run run;
  run.dir = "live";
  for (size_t i = 0; i < answers.size(); ++i) {
    const control::Exchange& a = answers[i];
    const std::string who = processLabel(s.statuses[i]);
    if (a.outcome == control::Outcome::Gone || a.outcome == control::Outcome::Stale) {
      gone.push_back(who);
      continue;
    }
    if (a.outcome != control::Outcome::Answered) {
      problems.push_back(who + ": " + a.detail);
      continue;
    }
    if (!a.reply.ok) {
      // Busy (another watcher's snapshot, a writer slow to flush) passes; a window that is gone
      // (its lease lapsed, an attach or stop ended it) ends the watch.
      const std::string message = a.reply.text("message");
      const bool passing =
          message.rfind("busy", 0) == 0 || message.find("writer") != std::string::npos;
      (passing ? problems : ended).push_back(who + ": " + message);
      continue;
    }
    running.push_back(a.reply.integer("step", -1));
    try {
      traces::sqlite::Database db = traces::sqlite::Database::fromBytes(a.payload);
      run.ranks.push_back(traces::readRankTrace(db, who + " (live)"));
    } catch (const std::exception& e) {
      problems.push_back(who + ": its snapshot does not read as a trace (" + e.what() + ")");
    }
  }
  std::sort(run.ranks.begin(), run.ranks.end(),
            [](const auto& a, const auto& b) { return a.meta.rank < b.meta.rank; });
  return run;
}

// The steps finished since `readUpTo` (and not read yet), in order. Where every rank counts its
// steps (`step N` ranges), those before the step the slowest rank is in: nothing to analyse to
// know them. Else the analysis of the window from readUpTo on says which steps it holds, less
// the newest, which may still run. `readUpTo` INT64_MIN: the first poll, whose steps began
// before the watch; they only set where reading starts.
std::vector<int64_t> finishedSteps(const traces::Run& run, const std::vector<int64_t>& running,
                                   const analysis::AnalyzeOptions& base, int64_t& readUpTo) {
  std::vector<int64_t> steps;
  if (!running.empty() && *std::min_element(running.begin(), running.end()) >= 0) {
    const int64_t slowest = *std::min_element(running.begin(), running.end());
    if (readUpTo == INT64_MIN) {
      readUpTo = *std::max_element(running.begin(), running.end());
      return steps;
    }
    for (int64_t n = readUpTo + 1; n < slowest; ++n) steps.push_back(n);
    return steps;
  }
  try {
    analysis::AnalyzeOptions fresh = base;
    if (readUpTo != INT64_MIN) fresh.firstStep = readUpTo + 1;
    steps = stepNumbers(run, fresh);
  } catch (const analysis::AnalysisInputError&) {
    // No whole step in the window yet (a job warming up, or a step longer than the poll).
  }
  if (!steps.empty()) steps.pop_back();
  if (readUpTo == INT64_MIN && !steps.empty()) {
    readUpTo = steps.back();
    steps.clear();
  }
  return steps;
}

// `record --watch`: the job's processes appear as it starts (a launcher spawns its ranks, each
// listens once it made its first NVTX call). Waits for the first, then for every rank of its
// world size, or until no other came for the settle time. Empty when the job ended first.
Session waitForJob(const LiveWatchOptions& o) {
  Session found;
  auto lastNew = Clock::now();
  const auto settle = std::chrono::duration<double>(o.appearSettleSeconds);
  while (!o.jobEnded->load()) {
    Problems quiet;  // none there yet is no problem: asked again soon
    quiet.quiet = true;
    Session now = collect(o.targets, quiet);
    if (now.targets.size() > found.targets.size()) lastNew = Clock::now();
    found = std::move(now);  // the newest view: a process that came and went is not watched
    if (!found.targets.empty()) {
      int64_t world = -1;  // the ranks' (a launcher of the job may say none)
      for (const control::AgentStatus& st : found.statuses) world = std::max(world, st.worldSize);
      if (world > 0 && static_cast<int64_t>(found.targets.size()) >= world) return found;
      if (Clock::now() - lastNew >= settle) return found;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return Session{};
}

}  // namespace

int watchLive(const LiveWatchOptions& o) {
  if (!o.prometheus.empty()) traces::checkOutputPath(o.prometheus);
  Problems problem;
  Session s;
  if (o.jobEnded != nullptr) {
    s = waitForJob(o);
    if (s.targets.empty()) {
      std::cout << "the job ended before any of its processes could be watched\n";
      return 0;
    }
  } else {
    s = collect(o.targets, problem);
    // collect() has said what is missing (no process, one that exited or refused), a line each.
    if (s.targets.empty() || problem.count > 0) return kBadInput;
  }
  const std::string runId = runIdOf(s);
  // Before any agent is asked: a --listen that cannot be served leaves the job untouched.
  WatchSession session(std::cout, o.prometheus, o.listen, runId);
  int64_t period = stepPeriodNs(s);
  int64_t keep = keepNs(o, period);
  // A refusal (a process records to files: read them instead) ends the watch before it begins.
  const std::vector<control::Exchange> started = control::watchAll(s.targets, keep, kReplyTimeout);
  for (size_t i = 0; i < started.size(); ++i) {
    const control::Exchange& e = started[i];
    const std::string who = processLabel(s.statuses[i]);
    if (e.outcome != control::Outcome::Answered) {
      throw UsageError("watch: " + who + " did not start watching: " + e.detail);
    }
    if (!e.reply.ok) throw UsageError("watch: " + who + ": " + e.reply.text("message"));
  }
  std::cerr << "bubblescope: watching " << s.targets.size() << " process(es) of run "
            << (runId.empty() ? "(unnamed)" : runId) << ", keeping " << seconds(keep)
            << " of each; Ctrl-C stops\n";

  if (o.jobEnded == nullptr) {  // under `record`, its own handlers pass them on to the job
    std::signal(SIGINT, onStopSignal);
    std::signal(SIGTERM, onStopSignal);
  }
  const analysis::AnalyzeOptions base = analyzeOptions(o.analysis, WarmupStep::Shown);
  auto interval = pollInterval(period);
  int64_t printedUpTo = INT64_MIN;  // the newest step read
  std::set<std::string> warned;
  auto lastStepAt = Clock::now();
  bool saidSilent = false;
  while (!g_stop.load()) {
    std::this_thread::sleep_for(interval);
    // Under `record`: the job had ended before this poll (a process left behind still answers).
    const bool jobEndedBefore = o.jobEnded != nullptr && o.jobEnded->load();
    std::vector<std::string> gone, problems, ended;
    std::vector<int64_t> running;
    const std::vector<control::Exchange> answers =
        control::fetchSnapshots(s.targets, control::kSnapshotClientTimeout);
    traces::Run run = runOf(s, answers, gone, problems, ended, running);
    if (!gone.empty()) {
      std::cout << "the job ended: " << gone.front()
                << (gone.size() > 1 ? " and " + std::to_string(gone.size() - 1) + " more" : "")
                << " exited; " << session.stepsWatched() << " step(s) watched\n";
      return 0;
    }
    if (!ended.empty()) {
      std::cout << "the watch ended: " << ended.front() << "; " << session.stepsWatched()
                << " step(s) watched\n";
      return 0;
    }
    if (jobEndedBefore) {
      std::cout << "the job ended; " << session.stepsWatched() << " step(s) watched\n";
      return 0;
    }
    // Said once each: a process slow to answer is asked again at the next poll.
    for (const std::string& p : problems) {
      if (warned.insert(p).second) warn("watch: " + p);
    }
    if (!problems.empty() || run.ranks.empty()) continue;
    // A job just started has no step period yet (or its steps changed pace): once the ranks
    // report one, each keeps what that period needs, no more (a window of 50 steps where 8 do
    // cost the watch 3x its CPU), and the polls follow it.
    if (const int64_t now = replyPeriodNs(answers); now > 0 && o.keepSeconds <= 0) {
      const int64_t wanted = keepNs(o, now);
      if (wanted * 3 < keep * 2 || wanted > keep) {
        control::watchAll(s.targets, wanted, kReplyTimeout);
        keep = wanted;
      }
      period = now;
      interval = pollInterval(period);
    }
    const std::vector<int64_t> steps = finishedSteps(run, running, base, printedUpTo);
    for (int64_t n : steps) {
      if (n <= printedUpTo) continue;
      session.read(run, base, n);
      printedUpTo = n;
      lastStepAt = Clock::now();
      saidSilent = false;
      if (o.count > 0 && session.stepsWatched() >= o.count) return 0;
    }
    // A job that stops finishing steps (ten steps' time, ten seconds at least): said once, until
    // a step comes again. A checkpoint save can look the same: it says "may".
    const auto silence = Clock::now() - lastStepAt;
    const auto patience = std::max<std::chrono::nanoseconds>(
        std::chrono::seconds(10), std::chrono::nanoseconds(period > 0 ? 10 * period : 0));
    if (!saidSilent && silence > patience) {
      std::cout << "no step finished for "
                << std::chrono::duration_cast<std::chrono::seconds>(silence).count()
                << " s: the job may hang ('bubblescope hang --all' says where each rank waits)\n";
      std::cout.flush();
      saidSilent = true;
    }
  }
  std::cerr << "bubblescope: watch stopped after " << session.stepsWatched() << " step(s)\n";
  return 0;
}

}  // namespace bubblescope::cli
