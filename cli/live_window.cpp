#include "cli/live_window.h"

#include <algorithm>
#include <memory>
#include <thread>

#include "agent/control/client.h"
#include "analyzer/result/errors.h"
#include "cli/usage_error.h"
#include "cli/watch_session.h"
#include "cli/yielding_work.h"
#include "traces/sqlite/sqlite_db.h"
#include "traces/sqlite/trace_reader.h"

namespace bubblescope::cli {
namespace {

// The job's world size as its ranks say it (the largest; -1 when none says: a launcher).
int64_t worldSizeOf(const Session& s) {
  int64_t world = -1;
  for (const control::AgentStatus& st : s.statuses) world = std::max(world, st.worldSize);
  return world;
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

// What each agent keeps: the steps of a poll and `held` more (half a second to a minute). A step
// read at a poll finished before it (it is older than the step the slowest rank is in) and since
// the poll before; it began at most a step earlier still; a step more covers ranks whose replies
// drift apart. Little more: each poll reads all of it.
int64_t keepFor(double keepSeconds, int held, int64_t period) {
  if (keepSeconds > 0) return static_cast<int64_t>(keepSeconds * 1e9);
  if (period <= 0) return 5'000'000'000;
  const int64_t poll = pollInterval(period).count() * 1'000'000;
  return std::clamp<int64_t>(poll + held * period, 500'000'000, 60'000'000'000);
}

std::string runIdOf(const Session& s, const std::string& command) {
  std::set<std::string> ids;
  for (const control::AgentStatus& st : s.statuses) ids.insert(st.runId);
  if (ids.size() > 1) {
    std::string list;
    for (const std::string& id : ids) list += (list.empty() ? "" : ", ") + id;
    throw UsageError(command + ": the processes belong to " + std::to_string(ids.size()) +
                     " runs (" + list + "): give --run-id to " + command + " one");
  }
  return ids.empty() ? std::string() : *ids.begin();
}

// What a poll's answers hold: each answered image read as one rank of a run, ordered by rank,
// and what the others say. Pure (it runs in an idle-class thread: yielding_work.h).
struct ReadAnswers {
  traces::Run run;
  std::vector<std::string> gone, ended, problems;
  // Each read process's step counter (the `step N` range it is in; -1 unknown).
  std::vector<int64_t> running;
  std::vector<HeldFrom> heldFrom;
};

ReadAnswers readAnswers(const std::vector<std::string>& labels,
                        const std::vector<control::Exchange>& answers) {
  ReadAnswers r;
  r.run.dir = "live";
  for (size_t i = 0; i < answers.size(); ++i) {
    const control::Exchange& a = answers[i];
    const std::string& who = labels[i];
    if (a.outcome == control::Outcome::Gone || a.outcome == control::Outcome::Stale) {
      r.gone.push_back(who);
      continue;
    }
    if (a.outcome != control::Outcome::Answered) {
      r.problems.push_back(who + ": " + a.detail);
      continue;
    }
    if (!a.reply.ok) {
      // Busy (another watcher's snapshot, a writer slow to flush) passes; a window that is gone
      // (its lease lapsed, an attach or stop ended it) ends the watch.
      const std::string message = a.reply.text("message");
      const bool passing =
          message.rfind("busy", 0) == 0 || message.find("writer") != std::string::npos;
      (passing ? r.problems : r.ended).push_back(who + ": " + message);
      continue;
    }
    r.running.push_back(a.reply.integer("step", -1));
    r.heldFrom.push_back({who, a.reply.integer("whole_from_step", -1)});
    try {
      traces::sqlite::Database db = traces::sqlite::Database::fromBytes(a.payload);
      r.run.ranks.push_back(traces::readRankTrace(db, who + " (live)"));
    } catch (const std::exception& e) {
      r.problems.push_back(who + ": its snapshot does not read as a trace (" + e.what() + ")");
    }
  }
  std::sort(r.run.ranks.begin(), r.run.ranks.end(),
            [](const auto& a, const auto& b) { return a.meta.rank < b.meta.rank; });
  return r;
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

}  // namespace

LiveWindow::LiveWindow(const TargetArgs& targets, std::string command, double keepSeconds,
                       int heldSteps)
    : command_(std::move(command)),
      targets_(targets),
      keepSeconds_(keepSeconds),
      heldSteps_(heldSteps) {
  Problems problem;
  session_ = collect(targets, problem);
  // collect() has said what is missing (no process, one that exited or refused), a line each.
  found_ = !session_.targets.empty() && problem.count == 0;
  if (found_) settle();
}

LiveWindow::LiveWindow(Session found, const TargetArgs& targets, std::string command,
                       double keepSeconds, int heldSteps)
    : command_(std::move(command)),
      targets_(targets),
      keepSeconds_(keepSeconds),
      heldSteps_(heldSteps),
      session_(std::move(found)) {
  found_ = !session_.targets.empty();
  if (found_) settle();
}

void LiveWindow::settle() {
  runId_ = runIdOf(session_, command_);
  period_ = stepPeriodNs(session_);
  keep_ = keepFor(keepSeconds_, heldSteps_, period_);
}

Session waitForJob(const TargetArgs& targets, const std::atomic<bool>& jobEnded,
                   double settleSeconds) {
  using Clock = std::chrono::steady_clock;
  Session found;
  auto lastNew = Clock::now();
  const auto settle = std::chrono::duration<double>(settleSeconds);
  while (!jobEnded.load()) {
    Problems quiet;  // none there yet is no problem: asked again soon
    quiet.quiet = true;
    Session now = collect(targets, quiet);
    if (now.targets.size() > found.targets.size()) lastNew = Clock::now();
    found = std::move(now);  // the newest view: a process that came and went is not watched
    if (!found.targets.empty()) {
      const int64_t world = worldSizeOf(found);
      if (world > 0 && static_cast<int64_t>(found.targets.size()) >= world) return found;
      if (Clock::now() - lastNew >= settle) return found;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return Session{};
}

std::chrono::milliseconds LiveWindow::interval() const {
  return pollInterval(period_);
}

void LiveWindow::start() {
  // A refusal (a process records to files: read them instead) ends the watch before it begins.
  const std::vector<control::Exchange> started =
      control::watchAll(session_.targets, keep_, kReplyTimeout);
  for (size_t i = 0; i < started.size(); ++i) {
    const control::Exchange& e = started[i];
    const std::string who = processLabel(session_.statuses[i]);
    if (e.outcome != control::Outcome::Answered) {
      throw UsageError(command_ + ": " + who + " did not start watching: " + e.detail);
    }
    if (!e.reply.ok) throw UsageError(command_ + ": " + who + ": " + e.reply.text("message"));
  }
}

std::vector<std::string> LiveWindow::joinLateRanks() {
  std::vector<std::string> joined;
  if (!targets_.all) return joined;  // the processes named are the ones watched
  const int64_t world = worldSizeOf(session_);
  if (world <= 0 || static_cast<int64_t>(session_.targets.size()) >= world) return joined;
  // Ranks on other nodes are never found here: look again once a second, not every poll.
  const auto now = std::chrono::steady_clock::now();
  if (now - lookedForRanks_ < std::chrono::seconds(1)) return joined;
  lookedForRanks_ = now;
  TargetArgs ofRun = targets_;
  ofRun.runId = runId_;
  Problems quiet;  // a process that went or refused is asked again at the next look
  quiet.quiet = true;
  const Session current = collect(ofRun, quiet);
  std::set<int64_t> known;
  for (const control::Target& t : session_.targets) known.insert(t.pid);
  Session fresh;
  for (size_t i = 0; i < current.targets.size(); ++i) {
    if (known.count(current.targets[i].pid) != 0) continue;
    fresh.targets.push_back(current.targets[i]);
    fresh.statuses.push_back(current.statuses[i]);
  }
  if (fresh.targets.empty()) return joined;
  const std::vector<control::Exchange> started =
      control::watchAll(fresh.targets, keep_, kReplyTimeout);
  for (size_t i = 0; i < started.size(); ++i) {
    if (started[i].outcome != control::Outcome::Answered || !started[i].reply.ok) continue;
    session_.targets.push_back(fresh.targets[i]);
    session_.statuses.push_back(fresh.statuses[i]);
    joined.push_back(processLabel(fresh.statuses[i]));
  }
  return joined;
}

LivePoll LiveWindow::poll(const analysis::AnalyzeOptions& base, YieldingWork& work) {
  LivePoll p;
  p.joined = joinLateRanks();
  // A rank's window begins when it joins: the steps already under way lack its start.
  if (!p.joined.empty()) joinedSinceRead_ = true;
  // Fetched here (it waits on sockets); read where it yields to the job (SQLite parses each
  // image: the poll's CPU). The reading shares the answers: it may outlive this call.
  const auto answers = std::make_shared<const std::vector<control::Exchange>>(
      control::fetchSnapshots(session_.targets, control::kSnapshotClientTimeout));
  auto labels = std::make_shared<std::vector<std::string>>();
  for (const control::AgentStatus& st : session_.statuses) labels->push_back(processLabel(st));
  ReadAnswers read =
      work.run<ReadAnswers>([answers, labels] { return readAnswers(*labels, *answers); });
  p.run = std::move(read.run);
  p.gone = std::move(read.gone);
  p.ended = std::move(read.ended);
  p.heldFrom = std::move(read.heldFrom);
  const std::vector<std::string>& problems = read.problems;
  const std::vector<int64_t>& running = read.running;
  if (!p.gone.empty() || !p.ended.empty()) return p;
  // Said once each: a process slow to answer is asked again at the next poll.
  for (const std::string& line : problems) {
    if (warned_.insert(line).second) p.newProblems.push_back(line);
  }
  if (!problems.empty() || p.run.ranks.empty()) return p;
  p.read = true;
  // A job just started has no step period yet (or its steps changed pace): once the ranks
  // report one, each keeps what that period needs, no more (a window of 50 steps where 8 do
  // cost the watch 3x its CPU), and the polls follow it.
  if (const int64_t now = replyPeriodNs(*answers); now > 0 && keepSeconds_ <= 0) {
    const int64_t wanted = keepFor(keepSeconds_, heldSteps_, now);
    if (wanted * 3 < keep_ * 2 || wanted > keep_) {
      control::watchAll(session_.targets, wanted, kReplyTimeout);
      keep_ = wanted;
    }
    period_ = now;
  }
  if (joinedSinceRead_ && readUpTo_ != INT64_MIN && !running.empty()) {
    readUpTo_ = std::max(readUpTo_, *std::max_element(running.begin(), running.end()));
    joinedSinceRead_ = false;
  }
  p.steps = finishedSteps(p.run, running, base, readUpTo_);
  if (!p.steps.empty()) readUpTo_ = p.steps.back();
  return p;
}

std::string joinedLine(const std::string& who) {
  return "watching " + who + " too, from the next step it begins";
}

std::string exitedLine(const std::vector<std::string>& gone) {
  if (gone.empty()) return "";
  return gone.front() +
         (gone.size() > 1 ? " and " + std::to_string(gone.size() - 1) + " more" : "") + " exited";
}

void StepSilence::stepRead(Clock::time_point now) {
  lastStep_ = now;
  said_ = false;
}

std::string StepSilence::due(Clock::time_point now, int64_t periodNs) {
  const auto silence = now - lastStep_;
  const auto patience = std::max<std::chrono::nanoseconds>(
      std::chrono::seconds(10), std::chrono::nanoseconds(periodNs > 0 ? 10 * periodNs : 0));
  if (said_ || silence <= patience) return "";
  said_ = true;
  return "no step finished for " +
         std::to_string(std::chrono::duration_cast<std::chrono::seconds>(silence).count()) +
         " s: the job may hang ('bubblescope hang --all' says where each rank waits)";
}

}  // namespace bubblescope::cli
