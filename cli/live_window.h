#pragma once
// The memory windows of a job that runs now (docs/watch.md): its processes found and asked to
// `watch`, each poll's snapshots read as one run, the steps that finished since the poll before,
// and what ends a poll (a process exited, a window ended). `watch --all` prints its steps one by
// one (watch_live.cpp); `view --attach` shows them (view_attach.cpp).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "analyzer/analyze.h"
#include "cli/attach_session.h"
#include "cli/held_steps.h"
#include "traces/model/trace.h"

namespace bubblescope::cli {

class YieldingWork;

// What one poll found.
struct LivePoll {
  traces::Run run;                       // each answering rank's window, ordered by rank
  std::vector<int64_t> steps;            // finished since the poll before, in order
  std::vector<std::string> gone;         // processes that exited: the job ended
  std::vector<std::string> ended;        // "who: why" for each window its agent ended
  std::vector<std::string> newProblems;  // a rank slow to answer, said once each
  std::vector<std::string> joined;       // "rank 3 (pid 2821)": came after the watch began
  std::vector<HeldFrom> heldFrom;        // each read rank's first step held whole, if it knows
  // False when a rank did not answer (or none did): the poll read no step and says nothing more.
  bool read = false;
};

class LiveWindow {
 public:
  // Finds the processes of `targets` and their run; what is missing is said on stderr, a line
  // each (found() is then false). `command` prefixes messages ("watch", "view"). Throws
  // UsageError for processes of several runs. `keepSeconds` 0: what each poll needs plus
  // `heldSteps` steps (0.5 s to 60 s).
  LiveWindow(const TargetArgs& targets, std::string command, double keepSeconds, int heldSteps);
  // The same on processes already found (waitForJob) by `targets`.
  LiveWindow(Session found, const TargetArgs& targets, std::string command, double keepSeconds,
             int heldSteps);

  bool found() const { return found_; }
  const std::string& runId() const { return runId_; }
  size_t processes() const { return session_.targets.size(); }
  int64_t keepNs() const { return keep_; }
  int64_t periodNs() const { return period_; }  // the slowest rank's step; -1 unknown
  std::chrono::milliseconds interval() const;   // how long to wait before the next poll

  // Asks each process for its memory window. Throws UsageError naming the first that refuses
  // (it records to a file) or does not answer.
  void start();
  // Fetches every window once. The steps it returns are taken as read: the next poll returns
  // the ones after them. With --all, a process of the run that started since (fewer processes
  // than the job's world size) is asked to watch too, and read from the step after it joined.
  // Its snapshots are read by `work` (yielding to the job: yielding_work.h).
  LivePoll poll(const analysis::AnalyzeOptions& base, YieldingWork& work);

 private:
  std::string command_;
  TargetArgs targets_;
  double keepSeconds_;
  int heldSteps_;
  Session session_;
  bool found_ = false;
  std::string runId_;
  int64_t period_ = -1, keep_ = 0;
  int64_t readUpTo_ = INT64_MIN;  // the newest step returned; INT64_MIN before the first poll
  std::set<std::string> warned_;
  std::chrono::steady_clock::time_point lookedForRanks_{};
  bool joinedSinceRead_ = false;

  void settle();  // the run, the step period and what to keep, of the processes found
  // The processes of the run that came since the last look (once a second while the job's
  // world size is not all found), each asked to watch; "rank 3 (pid 2821)" for each that did.
  std::vector<std::string> joinLateRanks();
};

// `record --watch`: the job's processes appear as it starts (a launcher spawns its ranks, each
// listens once it made its first NVTX call). Waits for the first, then for every rank of its
// world size, or until no other came for `settleSeconds`. Empty when `jobEnded` came first.
Session waitForJob(const TargetArgs& targets, const std::atomic<bool>& jobEnded,
                   double settleSeconds);

// "watching rank 3 (pid 2821) too, ...": a rank that joined, as `watch` and `view` say it.
std::string joinedLine(const std::string& who);

// "rank 0 (pid 2821) and 3 more exited": the processes a poll found gone.
std::string exitedLine(const std::vector<std::string>& gone);

// No step for a while: said once when none finished for ten steps' time (10 s at least), until
// a step comes again. A checkpoint save looks the same, hence "may".
class StepSilence {
 public:
  using Clock = std::chrono::steady_clock;
  explicit StepSilence(Clock::time_point now) : lastStep_(now) {}
  void stepRead(Clock::time_point now);
  // The line to say now ("no step finished for 12 s: ..."), once per silence; "" otherwise.
  std::string due(Clock::time_point now, int64_t periodNs);

 private:
  Clock::time_point lastStep_;
  bool said_ = false;
};

}  // namespace bubblescope::cli
