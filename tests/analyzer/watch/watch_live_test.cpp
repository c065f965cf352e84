// `bubblescope watch --all` on engine jobs that run now under a dormant agent (issue 30): no
// trace file is written; a stage that turns slow at a given step is named on every step of it and
// reported when it starts and ends; a job that exits ends the watch with one line, one that hangs
// gets one line saying so; an attach leaves the watch on, and a job recording to files is watched
// too; nothing to watch is one sentence and exit 2. Each job has a runtime directory of its own,
// so --all finds only its processes.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/agent/agent_test_support.h"
#include "tests/agent/background_process.h"
#include "tests/agent/live_engine_job.h"
#include "tests/support/engine_noise.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"

namespace bubblescope::testing {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The steps a watch's output accounts for: each read, or said lost because the watch fell behind
// the job (a loaded machine starves a niced watch past what the agents keep; it says so rather
// than read the remains: docs/watch.md, "Falling behind"), with the lines that follow such a one;
// and any step not read for another reason, with its line.
struct Accounted {
  std::vector<int> read;                                  // in order
  std::set<int> all;                                      // read or said lost behind
  std::vector<std::pair<int, std::string>> behind;        // the first step of each run lost
  std::vector<std::pair<int, std::string>> otherNotRead;  // the step each line names first
  bool contiguous() const {
    return !all.empty() && *all.rbegin() - *all.begin() + 1 == int(all.size());
  }
};

Accounted accountedSteps(const std::string& out) {
  static const std::regex read(R"(^step (\d+)  [0-9.]+ ms  bubble .*)");
  static const std::regex behind(R"(^step (\d+)  not read: the watch fell behind the job: .*)");
  static const std::regex either(R"(^step (\d+)  not read either, for the same reason.*)");
  static const std::regex range(
      R"(^steps (\d+)-(\d+)  not read, for the same reason as step (\d+)$)");
  static const std::regex notRead(R"(^step (\d+)  not read.*)");
  Accounted a;
  std::set<int> behindSteps;
  bool lastBehind = false;
  std::smatch m;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (std::regex_match(line, m, read)) {
      a.read.push_back(std::stoi(m[1]));
      a.all.insert(a.read.back());
    } else if (std::regex_match(line, m, behind)) {
      behindSteps.insert(std::stoi(m[1]));
      a.all.insert(std::stoi(m[1]));
      a.behind.emplace_back(std::stoi(m[1]), line);
      lastBehind = true;
      continue;
    } else if (std::regex_match(line, m, either)) {
      if (lastBehind) {
        a.all.insert(std::stoi(m[1]));
      } else {
        a.otherNotRead.emplace_back(std::stoi(m[1]), line);
      }
      continue;
    } else if (std::regex_match(line, m, range)) {
      if (behindSteps.contains(std::stoi(m[3]))) {
        for (int n = std::stoi(m[1]); n <= std::stoi(m[2]); ++n) a.all.insert(n);
      } else {
        a.otherNotRead.emplace_back(std::stoi(m[1]), line);
      }
    } else if (std::regex_match(line, m, notRead)) {
      a.otherNotRead.emplace_back(std::stoi(m[1]), line);
    }
    lastBehind = false;
  }
  return a;
}

// The accounting itself, on lines as a watch that fell behind twice writes them.
TEST(WatchLive, StepsSaidLostBehindAreAccountedAndOtherReasonsAreNot) {
  const std::string behind =
      "  not read: the watch fell behind the job: rank 0 (pid 1) and 3 more no longer held this "
      "step's start when it looked (each keeps 0.8 s; --keep keeps more)\n";
  const std::string out =
      "step 14  70.1 ms  bubble 27.9%  S 1.01x  no culprit\n"
      "step 15" +
      behind +
      "step 16  not read either, for the same reason: the steps after it are not listed while it "
      "holds\n"
      "steps 16-18  not read, for the same reason as step 15\n"
      "step 19  69.5 ms  bubble 28.0%  S 1.01x  no culprit\n"
      "step 19  ended: stall: host on stage 1, steps 10-14\n"
      "step 20" +
      behind +
      "step 21  not read either, for the same reason: the steps after it are not listed while it "
      "holds\n"
      "step 22  70.0 ms  bubble 27.7%  S 1.00x  no culprit\n"
      "step 23  not read: pipeline 0: no step has ops on every stage\n";
  const Accounted a = accountedSteps(out);
  EXPECT_EQ(a.read, (std::vector<int>{14, 19, 22}));
  EXPECT_EQ(a.all, (std::set<int>{14, 15, 16, 17, 18, 19, 20, 21, 22}));
  EXPECT_TRUE(a.contiguous());
  ASSERT_EQ(a.behind.size(), 2u);
  EXPECT_EQ(a.behind[0].first, 15);
  EXPECT_EQ(a.behind[1].first, 20);
  ASSERT_EQ(a.otherNotRead.size(), 1u);
  EXPECT_EQ(a.otherNotRead[0].first, 23);
  EXPECT_EQ(a.otherNotRead[0].second.rfind("step 23  not read: pipeline 0", 0), 0u);
}

// What 2 ms ops pick up from a shared machine names jitter or a short stall on some line, never a
// fault of a fifth of the step (engine_noise.h, liveJobTooLoaded).
std::string tooLoadedToTime(const LiveEngineJob& job) {
  return liveJobTooLoaded(job.truth());
}

// The steps where the machine stretched a stage by more than `share` of the step, by the job's
// own truth (StepNoise::stageShare: summed over the stages, a quiet machine's 2 ms sleeps that
// overran their median stretched a fifth of the steps by a twentieth).
std::set<int> stepsStretchedBeyond(const LiveEngineJob& job, double share) {
  std::set<int> out;
  for (const auto& [n, noise] : engineStepNoise(job.truth())) {
    if (noise.stageShare() > share) out.insert(n);
  }
  return out;
}

// A live job watched with `watch --all`, made afresh while `tooLoaded` says the machine was too
// loaded to time it (liveJobUntilSteady): the last one, its watch, and that line ("" if steady).
struct WatchedJob {
  std::unique_ptr<LiveEngineJob> job;
  ProcessResult watch;
  int exitCode = -1;
  std::string tooLoaded;
};

WatchedJob watchUntilSteady(const std::vector<std::string>& engineArgs,
                            const std::function<std::string(const LiveEngineJob&)>& tooLoaded) {
  WatchedJob w;
  w.tooLoaded = liveJobUntilSteady([&](int) {
    w.job = std::make_unique<LiveEngineJob>(engineArgs);
    w.watch = runBubblescope({"watch", "--all"}, w.job->env());
    w.exitCode = w.job->wait();
    return w.exitCode != 0 ? std::string() : tooLoaded(*w.job);
  });
  return w;
}

TEST(WatchLive, AStageThatTurnsSlowIsNamedWhileTheJobRunsAndNoFileIsWritten) {
  const int onset = 40, end = 60;  // steps of 2 ms ops: ~70 ms each, the onset ~3 s in
  // The assertions are about a stage 1.6x slow (a fifth of the step).
  const WatchedJob w =
      watchUntilSteady({"--op-ms", "2", "--steps", "90", "--slow-stage",
                        "2:1.6@" + std::to_string(onset) + "-" + std::to_string(end)},
                       tooLoadedToTime);
  const LiveEngineJob& job = *w.job;
  const ProcessResult& watch = w.watch;
  ASSERT_EQ(w.exitCode, 0) << job.log();
  if (!w.tooLoaded.empty()) GTEST_SKIP() << w.tooLoaded;
  EXPECT_EQ(watch.exitCode, 0) << watch.err;
  // The job was only watched: the dormant agent wrote no trace.
  EXPECT_FALSE(fs::exists(job.run()) && !fs::is_empty(job.run())) << job.run();

  static const std::regex step(R"(^step (\d+)  [0-9.]+ ms  bubble .*)");
  std::map<int, std::string> byStep;
  std::smatch m;
  for (const std::string& line : lines(watch.out)) {
    if (std::regex_match(line, m, step)) byStep[std::stoi(m[1])] = line;
  }
  ASSERT_FALSE(byStep.empty()) << watch.out << watch.err << " exit " << watch.exitCode
                               << (watch.timedOut ? " timed out" : "");
  ASSERT_LT(byStep.begin()->first, onset) << "the watch began after the fault\n" << watch.out;
  // Every step from the first read to the job's last, none twice or skipped: each read, or said
  // lost where a loaded machine starved the watch past what the agents keep.
  const Accounted steps = accountedSteps(watch.out);
  EXPECT_EQ(steps.read.size(), byStep.size()) << "a step read twice\n" << watch.out;
  EXPECT_TRUE(steps.contiguous()) << watch.out;
  EXPECT_TRUE(steps.otherNotRead.empty()) << watch.out;
  // Stage 2 is named on exactly the steps it is slow, except where the machine itself stretched
  // a step by a twentieth (a quarter of the fault's fifth: a descheduled moment makes one op 1.3x,
  // and the analysis rightly names what it sees there); at most a fifth of the steps are excused.
  const std::set<int> stretched = stepsStretchedBeyond(job, 0.05);
  int excused = 0;
  for (const auto& [n, line] : byStep) {
    const bool named = line.find("imbalance: stage 2 ") != std::string::npos;
    if (named != (n >= onset && n < end) && stretched.contains(n)) {
      ++excused;
      std::cout << "excused, the machine stretched it: " << line << "\n";
      continue;
    }
    EXPECT_EQ(named, n >= onset && n < end) << "step " << n << "\n" << watch.out;
  }
  EXPECT_LE(excused * 5, static_cast<int>(byStep.size())) << watch.out;
  EXPECT_NE(watch.out.find("started: imbalance: stage 2 "), std::string::npos) << watch.out;
  EXPECT_NE(watch.out.find("ended: imbalance: stage 2, steps "), std::string::npos) << watch.out;
  // Its first and last steps, where the machine left the steps around each alone (a start is said
  // on the second step named, an end on the second step not).
  const auto calm = [&](int from, int to) {
    return std::none_of(stretched.begin(), stretched.end(),
                        [&](int n) { return n >= from && n <= to; });
  };
  if (calm(onset - 1, onset + 1)) {
    EXPECT_NE(watch.out.find(", from step " + std::to_string(onset) + "\n"), std::string::npos)
        << watch.out;
    if (calm(end - 1, end + 1)) {
      EXPECT_NE(watch.out.find("ended: imbalance: stage 2, steps " + std::to_string(onset) + "-" +
                               std::to_string(end - 1)),
                std::string::npos)
          << watch.out;
    }
  }
  // The job's end is one line, the watch's last.
  const std::vector<std::string> all = lines(watch.out);
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all.back().rfind("the job ended: ", 0), 0u) << watch.out;
}

// A job without a fault, watched from its start: the agents' windows open a moment apart, each
// mid-step, so the first windows begin and end with transfers outside any step range. No line
// may read them as a fault: paired a window apart, they once made a stage a second late (S 15x,
// "stall: comm on stage 3->2 +980 ms") on the steps of the first read.
TEST(WatchLive, AFaultFreeJobWatchedFromItsStartNamesNoFault) {
  // A step the machine itself stretched by a twentieth is excused: a descheduled moment is a real
  // stall of that step, and the analysis names it. Where the job's own truth says the machine
  // stretched more than a fifth of its steps so, it was too loaded for the rest to say much.
  const WatchedJob w =
      watchUntilSteady({"--op-ms", "2", "--steps", "60"}, [](const LiveEngineJob& j) {
        if (std::string why = tooLoadedToTime(j); !why.empty()) return why;
        const size_t stretched = stepsStretchedBeyond(j, 0.05).size();
        const size_t steps = engineStepNoise(j.truth()).size();
        if (stretched * 5 <= steps) return std::string();
        return "the machine was too loaded to time this job: it stretched " +
               std::to_string(stretched) + " of its " + std::to_string(steps) +
               " steps by more than a twentieth";
      });
  const LiveEngineJob& job = *w.job;
  const ProcessResult& watch = w.watch;
  ASSERT_EQ(w.exitCode, 0) << job.log();
  if (!w.tooLoaded.empty()) GTEST_SKIP() << w.tooLoaded;
  EXPECT_EQ(watch.exitCode, 0) << watch.err;
  static const std::regex step(
      R"(^step (\d+)  ([0-9.]+) ms  bubble [0-9.]+%  S ([0-9.]+)x  (.*)$)");
  static const std::regex cost(R"(\+([0-9.]+) ms)");
  const std::set<int> stretched = stepsStretchedBeyond(job, 0.05);
  int read = 0, quiet = 0, excused = 0;
  std::smatch m, c;
  for (const std::string& line : lines(watch.out)) {
    if (!std::regex_match(line, m, step)) continue;
    ++read;
    const double ms = std::stod(m[2]), s = std::stod(m[3]);
    const std::string culprit = m[4];
    if (culprit != "no culprit" && stretched.contains(std::stoi(m[1]))) {
      ++excused;
      std::cout << "excused, the machine stretched it: " << line << "\n";
      continue;
    }
    // The machine's noise (at most a tenth of the step, else skipped above) stretches a step
    // now and then, and a short stall may be named for it; never a fault of a quarter step.
    EXPECT_LE(s, 1.25) << line << "\n" << watch.out;
    if (culprit == "no culprit") {
      ++quiet;
    } else if (std::regex_search(culprit, c, cost)) {
      EXPECT_LT(std::stod(c[1]), 0.25 * ms) << line << "\n" << watch.out;
    }
  }
  ASSERT_GE(read, 20) << watch.out << watch.err;
  EXPECT_LE(excused * 5, read) << watch.out;
  EXPECT_GE(quiet * 10, (read - excused) * 8) << "most steps of a fault-free job name no culprit\n"
                                              << watch.out;
}

// A rank that comes up late (a node slow to start): `watch --all` began with the three that were
// there, takes the fourth in when it appears, says so once, and reads every step from one it
// began after, to the job's end.
TEST(WatchLive, ARankThatStartsLateJoinsTheWatch) {
  LiveEngineJob job({"--op-ms", "2", "--steps", "80", "--late-start", "3:3"}, true, 3);
  const ProcessResult watch = runBubblescope({"watch", "--all"}, job.env());
  ASSERT_EQ(job.wait(), 0) << job.log();
  EXPECT_EQ(watch.exitCode, 0) << watch.err;
  EXPECT_NE(watch.err.find("bubblescope: watching 3 process(es)"), std::string::npos) << watch.err;
  int joined = 0;
  for (const std::string& line : lines(watch.err)) {
    joined += line.rfind("bubblescope: watching rank 3 (pid ", 0) == 0;
  }
  EXPECT_EQ(joined, 1) << watch.err;
  const Accounted steps = accountedSteps(watch.out);
  ASSERT_GT(steps.read.size(), 10u) << watch.out << watch.err;
  // From the first step read on, each one read or said lost (a loaded machine can starve the
  // watch past what the agents keep), none read twice, to the job's last; no other reason.
  EXPECT_TRUE(steps.contiguous()) << watch.out;
  EXPECT_TRUE(std::is_sorted(steps.read.begin(), steps.read.end()) &&
              std::adjacent_find(steps.read.begin(), steps.read.end()) == steps.read.end())
      << watch.out;
  EXPECT_TRUE(steps.otherNotRead.empty()) << watch.out;
  // To the end, less what finished in the last poll before the processes exited (their windows
  // went with them): a poll is at most a second, 14 steps of these.
  EXPECT_GE(*steps.all.rbegin(), 80 - 15) << watch.out;
  const std::vector<std::string> all = lines(watch.out);
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all.back().rfind("the job ended: ", 0), 0u) << watch.out;
}

TEST(WatchLive, AJobThatHangsIsSaidOnceAndItsEndToo) {
  // Stage 1 stops before F3 of step 15 and never returns; the engine's watchdog ends the job.
  LiveEngineJob job({"--op-ms", "2", "--steps", "40", "--hang", "1:3:15", "--timeout", "16"});
  const ProcessResult watch = runBubblescope({"watch", "--all"}, job.env());
  job.wait();
  EXPECT_EQ(watch.exitCode, 0) << watch.err;
  int hangs = 0;
  for (const std::string& line : lines(watch.out)) {
    hangs += line.rfind("no step finished for ", 0) == 0;
  }
  EXPECT_EQ(hangs, 1) << watch.out;
  EXPECT_NE(watch.out.find("the job ended: "), std::string::npos) << watch.out;
  EXPECT_EQ(watch.out.find("step 15  "), std::string::npos) << watch.out;
}

// A watch in the background has read its first step (within 20 s).
bool saidAStep(BackgroundProcess& watch) {
  return eventually([&] { return watch.out().find("step ") != std::string::npos; }, seconds(20));
}

// Someone attaches to record a file while the job is watched: the agents record the file and
// the watch goes on beside it, every step read, to the job's end.
TEST(WatchLive, AnAttachThatRecordsAFileLeavesTheWatchOn) {
  LiveEngineJob job({"--op-ms", "2", "--steps", "150"});
  TempDir logs;
  BackgroundProcess watch(bubblescopeArgv({"watch", "--all"}), job.env(), logs.path());
  ASSERT_TRUE(saidAStep(watch)) << watch.out() << watch.err();
  const ProcessResult attach =
      runBubblescope({"attach", "--all", "--steps", "2", "--wait"}, job.env());
  EXPECT_EQ(attach.exitCode, 0) << attach.out << attach.err;
  const size_t linesAtAttach = lines(watch.out()).size();
  ASSERT_EQ(job.wait(), 0) << job.log();
  EXPECT_EQ(watch.wait(seconds(20)), 0) << watch.out() << watch.err();
  const std::vector<std::string> all = lines(watch.out());
  EXPECT_GT(all.size(), linesAtAttach + 5) << "the watch stopped at the attach\n" << watch.out();
  EXPECT_EQ(watch.out().find("the watch ended"), std::string::npos) << watch.out();
  // Unbroken: every step from the first read to the last, each read (the agents' traces for the
  // watch went on across the attach's window), or said lost where a loaded machine starved the
  // watch past what the agents keep; no step not read for another reason.
  const Accounted steps = accountedSteps(watch.out());
  ASSERT_FALSE(steps.read.empty()) << watch.out();
  EXPECT_TRUE(steps.contiguous()) << watch.out();
  EXPECT_TRUE(steps.otherNotRead.empty()) << watch.out();
  // And it read on after the attach: steps, not only steps said lost. (How many it read is the
  // machine's: at load 8 a starved watch read fewer than half, the rest said lost in full.)
  const std::vector<std::string> afterAttach(
      all.begin() + static_cast<std::ptrdiff_t>(std::min(linesAtAttach, all.size())), all.end());
  std::ostringstream tail;
  for (const std::string& line : afterAttach) tail << line << "\n";
  EXPECT_GE(accountedSteps(tail.str()).read.size(), 3u) << "no step read after the attach\n"
                                                        << watch.out();
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all.back().rfind("the job ended: ", 0), 0u) << watch.out();
  EXPECT_EQ(traceFiles(job.run()).size(), 4u);
}

// A watch that falls behind (stopped for 3 s, where the agents keep under a second) says so for
// the steps whose start was gone when it looked, not what an analysis of their remains would
// say, and reads the steps after them.
TEST(WatchLive, AWatchThatFellBehindSaysSoAndReadsOnAfter) {
  LiveEngineJob job({"--op-ms", "2", "--steps", "150"});
  TempDir logs;
  BackgroundProcess watch(bubblescopeArgv({"watch", "--all"}), job.env(), logs.path());
  ASSERT_TRUE(saidAStep(watch)) << watch.out() << watch.err();
  ASSERT_EQ(::kill(watch.pid(), SIGSTOP), 0);
  std::this_thread::sleep_for(seconds(3));
  ASSERT_EQ(::kill(watch.pid(), SIGCONT), 0);
  ASSERT_EQ(job.wait(), 0) << job.log();
  EXPECT_EQ(watch.wait(seconds(20)), 0) << watch.out() << watch.err();
  // Each run of steps lost said in full once, with the ranks and what they keep.
  static const std::regex behind(
      R"(^step (\d+)  not read: the watch fell behind the job: rank \d \(pid \d+\)( and \d more)? )"
      R"(no longer held this step's start when it looked \(each keeps [0-9.]+ s; --keep keeps more\)$)");
  const Accounted steps = accountedSteps(watch.out());
  ASSERT_FALSE(steps.behind.empty()) << "3 s stopped, under a second kept: steps were lost\n"
                                     << watch.out();
  for (const auto& [n, line] : steps.behind) {
    EXPECT_TRUE(std::regex_match(line, behind)) << line;
  }
  ASSERT_FALSE(steps.read.empty()) << watch.out();
  const int firstBehind = steps.behind.front().first, lastRead = steps.read.back();
  const auto readAfter =
      std::count_if(steps.read.begin(), steps.read.end(), [&](int n) { return n > firstBehind; });
  // Nothing else is not read up to the last step read. The job's own last steps are not this
  // test's: once in CI a step two before the job's end read as "no step has ops on every stage"
  // as the processes exited (its likely cause, a snapshot's step counter read after its image,
  // is fixed in the agent; not reproduced to prove it).
  for (const auto& [n, line] : steps.otherNotRead) {
    EXPECT_GT(n, lastRead) << line << "\n" << watch.out();
  }
  EXPECT_GT(readAfter, 5) << watch.out();
}

// A job under a plain `record` writes its traces from the start; `watch --all` reads it all the
// same, and the traces are whole.
TEST(WatchLive, AJobRecordingToFilesIsWatchedToo) {
  LiveEngineJob job({"--op-ms", "2", "--steps", "120"}, false);
  const ProcessResult watch = runBubblescope({"watch", "--all", "--count", "8"}, job.env());
  EXPECT_EQ(watch.exitCode, 0) << watch.out << watch.err;
  size_t steps = 0;
  for (const std::string& line : lines(watch.out)) steps += line.rfind("step ", 0) == 0;
  EXPECT_GE(steps, 8u) << watch.out << watch.err;
  ASSERT_EQ(job.wait(), 0) << job.log();
  ASSERT_EQ(traceFiles(job.run()).size(), 4u);
  const ProcessResult analyze = runBubblescope({"analyze", job.run().string()}, job.env());
  EXPECT_EQ(analyze.exitCode, 0) << analyze.out << analyze.err;
}

// A TCP port free now on the loopback (the kernel's choice).
int freePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t n = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n);
  close(fd);
  return ntohs(a.sin_port);
}

// GET /metrics from the loopback port, as a scraper does: the whole response, "" if none.
std::string scrape(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(port));
  std::string out;
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    const std::string get = "GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n";
    if (write(fd, get.data(), get.size()) == static_cast<ssize_t>(get.size())) {
      char buf[4096];
      for (ssize_t got; (got = read(fd, buf, sizeof buf)) > 0;) out.append(buf, got);
    }
  }
  close(fd);
  return out;
}

// A process's nice value: the 19th field of /proc/PID/stat, after the command's closing paren.
int niceOf(pid_t pid) {
  const std::string stat = readFile("/proc/" + std::to_string(pid) + "/stat");
  std::istringstream fields(stat.substr(stat.rfind(')') + 2));
  std::string field;
  for (int i = 3; i <= 19 && fields >> field; ++i) {
  }
  return std::stoi(field);
}

// --listen serves the newest step on /metrics while the watch runs.
TEST(WatchLive, ListenServesTheNewestStepToAScraper) {
  LiveEngineJob job({"--op-ms", "2", "--steps", "300"});
  const int port = freePort();
  TempDir logs;
  BackgroundProcess watch(bubblescopeArgv({"watch", "--all", "--listen",
                                           "127.0.0.1:" + std::to_string(port), "--count", "20"}),
                          job.env(), logs.path());
  std::string metrics;
  EXPECT_TRUE(eventually(
      [&] {
        metrics = scrape(port);
        return metrics.find("\nbubblescope_steps_watched_total{") != std::string::npos &&
               metrics.find("\nbubblescope_step{") != std::string::npos;
      },
      seconds(20)))
      << metrics << watch.err();
  EXPECT_NE(metrics.find("200 OK"), std::string::npos) << metrics;
  // The watch gives the job the CPU first: its priority is 10 lower than the shell's (--nice).
  errno = 0;
  const int ours = getpriority(PRIO_PROCESS, 0);
  ASSERT_EQ(errno, 0);
  EXPECT_EQ(niceOf(watch.pid()), std::min(ours + 10, 19));
  EXPECT_EQ(watch.wait(seconds(30)), 0) << watch.out() << watch.err();
  // A port that cannot be served is one sentence and exit 2.
  const ProcessResult bad =
      runBubblescope({"watch", "--all", "--listen", "not an address"}, job.env());
  EXPECT_EQ(bad.exitCode, 2) << bad.out << bad.err;
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
}

TEST(WatchLive, NothingToWatchIsOneSentenceAndExitTwo) {
  TempDir rt;
  fs::permissions(rt.path(), fs::perms::owner_all);
  ProcessOptions o = cleanEnv({{"BUBBLESCOPE_RUNTIME_DIR", rt.path().string()}});
  o.unsetEnv.push_back("XDG_RUNTIME_DIR");
  const ProcessResult r = runBubblescope({"watch", "--all"}, o);
  EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  const ProcessResult both = runBubblescope({"watch", "--all", "somewhere"}, o);
  EXPECT_EQ(both.exitCode, 2);
  EXPECT_NE(both.err.find("not both"), std::string::npos) << both.err;
}

}  // namespace
}  // namespace bubblescope::testing
