// `bubblescope ps`, `attach` and `detach` against real dormant jobs under `bubblescope record`:
// the reference engine (one process per stage, `step N` ranges) and a small test program. Each
// test has a runtime directory of its own (BUBBLESCOPE_RUNTIME_DIR), so `--all` finds only its
// own job, and polls for conditions instead of sleeping.
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/agent/agent_test_support.h"
#include "tests/agent/background_process.h"
#include "tests/support/temp_dir.h"
#include "traces/sqlite/trace_reader.h"

namespace bubblescope::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using std::chrono::seconds;

constexpr auto kJobTimeout = seconds(120);
constexpr auto kReady = seconds(60);  // for the job's processes to show up (a loaded machine)
constexpr uid_t kNobody = 65534;
constexpr gid_t kNogroup = 65534;

ProcessOptions jobEnv(const fs::path& runtimeDir) {
  ProcessOptions o = cleanEnv({{"BUBBLESCOPE_RUNTIME_DIR", runtimeDir.string()}});
  o.unsetEnv.push_back("XDG_RUNTIME_DIR");  // the sockets go where the test says, nowhere else
  o.timeout = seconds(60);
  return o;
}

std::vector<int64_t> stepsIn(const fs::path& file) {
  std::set<int64_t> steps;
  for (const auto& row : sqlRows(file,
                                 "SELECT s.value FROM nvtx_ranges r JOIN strings s ON s.id = "
                                 "r.name_id WHERE s.value LIKE 'step %'")) {
    steps.insert(std::stoll(row[0].substr(5)));
  }
  return {steps.begin(), steps.end()};
}

std::vector<std::string> linesWith(const std::string& text, const std::string& needle) {
  std::vector<std::string> found;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find(needle) != std::string::npos) found.push_back(line);
  }
  return found;
}

// The state of the only process `ps` lists ("" if it lists none or several).
std::string stateOf(const json& ps) {
  return ps.size() == 1 ? ps[0]["state"].get<std::string>() : std::string();
}

std::string rankFile(int rank) {
  char name[32];
  std::snprintf(name, sizeof name, "rank-%05d.sqlite", rank);
  return name;
}

// A job under `bubblescope record --dormant`, with the client pointed at its runtime directory.
class DormantJob {
 public:
  explicit DormantJob(const std::vector<std::string>& command) {
    fs::create_directories(tmp_ / "logs");
    std::vector<std::string> argv = {BUBBLESCOPE_BIN, "record", "--dormant", "-o",
                                     run().string(),  "--"};
    argv.insert(argv.end(), command.begin(), command.end());
    job_ = std::make_unique<BackgroundProcess>(argv, jobEnv(runtimeDir()), tmp_ / "logs");
  }

  // The reference engine: 4 stages, `steps` steps of about 0.3 s.
  static std::vector<std::string> engine(const fs::path& truth, int steps = 12) {
    return {BUBBLESCOPE_BIN,
            "engine",
            "run",
            "--schedule",
            "1f1b",
            "-p",
            "4",
            "-m",
            "4",
            "--compute",
            "sleep",
            "--op-ms",
            "20",
            "--steps",
            std::to_string(steps),
            "--truth",
            truth.string(),
            "-q"};
  }

  fs::path run() const { return tmp_ / "run"; }
  fs::path runtimeDir() const { return tmp_ / "rt"; }
  const TempDir& tmp() const { return tmp_; }
  BackgroundProcess& job() { return *job_; }

  ProcessResult cli(const std::vector<std::string>& args) {
    return runBubblescope(args, jobEnv(runtimeDir()));
  }

  json ps() {
    const ProcessResult r = cli({"ps", "--json"});
    if (r.exitCode != 0 || r.out.empty()) return json::array();
    return json::parse(r.out);
  }

  // Waits until `n` processes with a rank answer, each with a step number (when `stepping`).
  bool ranksReady(size_t n, bool stepping = true) {
    return eventually(
        [&] {
          size_t ready = 0;
          for (const json& p : ps()) {
            if (p["rank"].get<int>() >= 0 && (!stepping || p["step"].get<int64_t>() >= 0)) ++ready;
          }
          return ready == n;
        },
        kReady);
  }

  int finish() { return job_->wait(kJobTimeout); }

 private:
  TempDir tmp_{"bubblescope-attach"};
  std::unique_ptr<BackgroundProcess> job_;
};

// Sends one request line to a socket as user nobody; the reply line (or what went wrong).
std::string requestAsNobody(const fs::path& socket, const std::string& line) {
  sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, socket.c_str(), sizeof addr.sun_path - 1);
  int out[2];
  if (pipe(out) != 0) return "pipe failed";
  const pid_t child = fork();
  if (child == 0) {
    close(out[0]);
    alarm(20);
    if (setgroups(0, nullptr) != 0 || setresgid(kNogroup, kNogroup, kNogroup) != 0 ||
        setresuid(kNobody, kNobody, kNobody) != 0) {
      _exit(3);
    }
    const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
    if (::connect(s, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
      const char msg[] = "connect failed";
      ssize_t ignored = write(out[1], msg, sizeof msg - 1);
      (void)ignored;
      _exit(4);
    }
    // The agent may refuse and close before the line is sent: no SIGPIPE, its reply is queued.
    ssize_t ignored = ::send(s, line.data(), line.size(), MSG_NOSIGNAL);
    char buf[4096];
    ssize_t n;
    while ((n = read(s, buf, sizeof buf)) > 0) ignored = write(out[1], buf, static_cast<size_t>(n));
    (void)ignored;
    _exit(0);
  }
  close(out[1]);
  std::string reply;
  char buf[4096];
  ssize_t n;
  while ((n = read(out[0], buf, sizeof buf)) > 0) reply.append(buf, static_cast<size_t>(n));
  close(out[0]);
  int status = 0;
  waitpid(child, &status, 0);
  return reply;
}

ProcessResult cliAsNobody(const std::vector<std::string>& args, const fs::path& runtimeDir) {
  std::vector<std::string> argv = {"/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup",
                                   "--clear-groups", BUBBLESCOPE_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  return runProcess(argv, jobEnv(runtimeDir));
}

TEST(AgentAttach, DormantEngineRecordsNothingUntilAttachThenTheSameTwoStepsOnEveryRank) {
  TempDir scratch;
  DormantJob j(DormantJob::engine(scratch / "truth.json"));
  ASSERT_TRUE(j.ranksReady(4)) << j.job().err();
  // Stepping, and not a single trace yet.
  EXPECT_TRUE(traceFiles(j.run()).empty());

  const ProcessResult a = j.cli({"attach", "--all", "--steps", "2", "--wait"});
  EXPECT_EQ(a.exitCode, 0) << a.out << a.err;
  EXPECT_EQ(linesWith(a.out, ": steps ").size(), 4u) << a.out;
  EXPECT_EQ(linesWith(a.out, ": done").size(), 4u) << a.out;
  EXPECT_EQ(linesWith(a.out, "traces in " + j.run().string()).size(), 1u) << a.out;
  ASSERT_EQ(j.finish(), 0) << j.job().err();

  const auto files = traceFiles(j.run());
  ASSERT_EQ(files.size(), 4u) << j.job().err();
  std::vector<int64_t> first;
  for (int rank = 0; rank < 4; ++rank) {
    const fs::path file = j.run() / rankFile(rank);
    const std::vector<int64_t> steps = stepsIn(file);
    ASSERT_EQ(steps.size(), 2u) << file;
    EXPECT_EQ(steps[1], steps[0] + 1) << file;
    if (first.empty()) first = steps;
    EXPECT_EQ(steps, first) << "rank " << rank << " captured other steps than rank 0";
    const traces::RankMeta meta = traces::readRankMeta(file);
    EXPECT_EQ(meta.rank, rank);
    ASSERT_EQ(meta.captureWindows.size(), 1u);
    EXPECT_EQ(meta.captureWindows[0].reason, "attach steps=2 from=" + std::to_string(first[0]));
  }
  // What attach printed is what the files hold.
  EXPECT_NE(a.out.find("steps " + std::to_string(first[0]) + "-" + std::to_string(first[1])),
            std::string::npos)
      << a.out;
}

TEST(AgentAttach, DurationWindowStartsAtTheSameStepAndLastsAboutAsLongAsAsked) {
  TempDir scratch;
  DormantJob j(DormantJob::engine(scratch / "truth.json"));
  ASSERT_TRUE(j.ranksReady(4)) << j.job().err();
  const ProcessResult a = j.cli({"attach", "--all", "--duration", "0.8", "--wait"});
  EXPECT_EQ(a.exitCode, 0) << a.out << a.err;
  EXPECT_EQ(linesWith(a.out, ": 0.8 s from step ").size(), 4u) << a.out;
  ASSERT_EQ(j.finish(), 0) << j.job().err();

  std::set<int64_t> firstSteps;
  for (int rank = 0; rank < 4; ++rank) {
    const fs::path file = j.run() / rankFile(rank);
    const traces::RankMeta meta = traces::readRankMeta(file);
    ASSERT_EQ(meta.captureWindows.size(), 1u) << file;
    const traces::CaptureWindow& w = meta.captureWindows[0];
    // Ended by the writer (every 20 ms); a loaded machine may be late.
    EXPECT_GE(w.end - w.start, 800'000'000) << file;
    EXPECT_LT(w.end - w.start, 1'500'000'000) << file;
    const std::vector<int64_t> steps = stepsIn(file);
    ASSERT_FALSE(steps.empty()) << file;
    firstSteps.insert(steps[0]);
    // The window opened at that step's boundary, right before its range began.
    const int64_t stepStart = sqlInt(file,
                                     "SELECT min(r.start) FROM nvtx_ranges r JOIN strings s ON "
                                     "s.id = r.name_id WHERE s.value = 'step " +
                                         std::to_string(steps[0]) + "'");
    EXPECT_GE(stepStart, w.start - 1'000'000) << file;
    EXPECT_LT(stepStart - w.start, 100'000'000) << file;
  }
  EXPECT_EQ(firstSteps.size(), 1u) << "ranks started at different steps";
}

TEST(AgentAttach, DetachStopsRecordingAndTheJobGoesOn) {
  TempDir scratch;
  DormantJob j(DormantJob::engine(scratch / "truth.json"));
  ASSERT_TRUE(j.ranksReady(4)) << j.job().err();
  const ProcessResult a = j.cli({"attach", "--all", "--duration", "60"});
  ASSERT_EQ(a.exitCode, 0) << a.out << a.err;
  ASSERT_TRUE(eventually(
      [&] {
        const json p = j.ps();
        return p.size() == 4 && std::all_of(p.begin(), p.end(), [](const json& e) {
                 return e["state"] == "recording";
               });
      },
      kReady))
      << j.ps().dump();

  const ProcessResult d = j.cli({"detach", "--all"});
  EXPECT_EQ(d.exitCode, 0) << d.out << d.err;
  EXPECT_EQ(linesWith(d.out, ": stopped recording -> " + j.run().string()).size(), 4u) << d.out;
  for (const json& p : j.ps()) EXPECT_EQ(p["state"], "dormant") << p.dump();
  const ProcessResult again = j.cli({"detach", "--all"});
  EXPECT_EQ(again.exitCode, 0) << again.err;
  EXPECT_EQ(linesWith(again.out, ": was not recording").size(), 4u) << again.out;
  ASSERT_EQ(j.finish(), 0) << j.job().err();

  for (int rank = 0; rank < 4; ++rank) {
    const fs::path file = j.run() / rankFile(rank);
    const traces::RankMeta meta = traces::readRankMeta(file);
    ASSERT_EQ(meta.captureWindows.size(), 1u) << file;
    const traces::CaptureWindow& w = meta.captureWindows[0];
    EXPECT_GT(w.end, w.start);
    EXPECT_LT(w.end - w.start, 30'000'000'000) << "detach did not end the window";
    // Nothing began after the window closed, though the job ran on.
    EXPECT_LE(sqlInt(file, "SELECT max(start) FROM nvtx_ranges"), w.end + 1'000'000) << file;
    EXPECT_LT(stepsIn(file).size(), 12u) << file;
  }
}

TEST(AgentAttach, PsListsTheEnginesStagesWithTheirRanksAndNothingIsLeftBehind) {
  TempDir scratch;
  DormantJob j(DormantJob::engine(scratch / "truth.json"));
  ASSERT_TRUE(j.ranksReady(4, false)) << j.job().err();
  const json list = j.ps();
  ASSERT_EQ(list.size(), 4u) << list.dump();  // the launcher makes no NVTX call: no socket
  std::set<int> ranks;
  for (const json& p : list) {
    ranks.insert(p["rank"].get<int>());
    EXPECT_EQ(p["world_size"], 4);
    EXPECT_EQ(p["state"], "dormant");
    EXPECT_EQ(p["run_id"], list[0]["run_id"]);
    EXPECT_FALSE(p["run_id"].get<std::string>().empty());
    EXPECT_NE(p["command"].get<std::string>().find("engine"), std::string::npos) << p.dump();
    EXPECT_EQ(p["file"].get<std::string>(), (j.run() / rankFile(p["rank"].get<int>())).string());
  }
  EXPECT_EQ(ranks, (std::set<int>{0, 1, 2, 3}));
  EXPECT_EQ(list[0]["rank"], 0);  // in rank order

  const ProcessResult table = j.cli({"ps"});
  EXPECT_EQ(table.exitCode, 0) << table.err;
  EXPECT_EQ(table.out.rfind("PID", 0), 0u) << table.out;
  EXPECT_EQ(linesWith(table.out, "dormant").size(), 4u) << table.out;
  EXPECT_NE(table.out.find("OUTPUT FILE"), std::string::npos) << table.out;
  for (int rank = 0; rank < 4; ++rank) {
    EXPECT_EQ(linesWith(table.out, (j.run() / rankFile(rank)).string()).size(), 1u) << table.out;
  }
  const ProcessResult other = j.cli({"ps", "--json", "--run-id", "no-such-run"});
  EXPECT_EQ(json::parse(other.out).size(), 0u);

  // The job's exit code is its own, and its sockets go with it.
  ASSERT_EQ(j.finish(), 0) << j.job().err();
  EXPECT_TRUE(traceFiles(j.run()).empty());
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(j.runtimeDir())) left.push_back(e.path().string());
  EXPECT_TRUE(left.empty()) << left.front();
  const ProcessResult none = j.cli({"ps"});
  EXPECT_EQ(none.exitCode, 0);
  EXPECT_NE(none.err.find("no attachable processes"), std::string::npos) << none.err;
}

TEST(AgentAttach, AnotherUserIsRefusedAndTheJobGoesOn) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to act as user nobody (CI runs as root)";
  if (!fs::exists("/usr/bin/setpriv"))
    GTEST_SKIP() << "needs setpriv (util-linux) to act as nobody";
  DormantJob j({ATTACH_TEST_APP, "steps", "100", "40"});
  ASSERT_TRUE(eventually([&] { return j.ps().size() == 1; }, kReady)) << j.job().err();
  const json me = j.ps()[0];
  const std::string pid = std::to_string(me["pid"].get<int>());

  // The command line refuses a process that is not the caller's.
  const ProcessResult cli = cliAsNobody({"attach", pid, "--steps", "1"}, j.runtimeDir());
  EXPECT_EQ(cli.exitCode, 2) << cli.out << cli.err;
  EXPECT_EQ(agentLines(cli.err).size(), 1u) << cli.err;
  EXPECT_NE(cli.err.find("pid " + pid + ": not your process"), std::string::npos) << cli.err;

  // So does the agent, should its directory and socket be opened to everyone (SO_PEERCRED).
  // (The test's temporary directory is 0700 too: nobody must be able to pass through it.)
  const fs::path socket = j.runtimeDir() / (pid + ".sock");
  ASSERT_EQ(chmod(j.tmp().path().c_str(), 0711), 0);
  ASSERT_EQ(chmod(j.runtimeDir().c_str(), 0711), 0);
  ASSERT_EQ(chmod(socket.c_str(), 0666), 0);
  const std::string reply = requestAsNobody(socket, "start duration=5\n");
  const std::string second = requestAsNobody(socket, "status\n");
  ASSERT_EQ(chmod(j.runtimeDir().c_str(), 0700), 0);
  ASSERT_EQ(chmod(j.tmp().path().c_str(), 0700), 0);
  EXPECT_EQ(reply.rfind("err ", 0), 0u) << reply;
  EXPECT_NE(reply.find("permission%20denied"), std::string::npos) << reply;
  EXPECT_EQ(second.rfind("err ", 0), 0u) << second;

  // Nothing started; the job goes on and ends as it would have, one warning line in its log.
  EXPECT_EQ(stateOf(j.ps()), "dormant");
  ASSERT_EQ(j.finish(), 0) << j.job().err();
  EXPECT_TRUE(traceFiles(j.run()).empty());
  EXPECT_EQ(linesWith(j.job().err(), "refused a control connection").size(), 1u) << j.job().err();
  EXPECT_NE(j.job().err().find("from uid 65534"), std::string::npos) << j.job().err();
}

TEST(AgentAttach, UnsafeSocketDirectoryIsRefusedWithOneLine) {
  TempDir tmp;
  const fs::path open = tmp / "open";
  fs::create_directories(open);
  ASSERT_EQ(chmod(open.c_str(), 0755), 0);
  ProcessOptions o = jobEnv(open);
  const ProcessResult r = runBubblescope({"record", "--dormant", "-o", (tmp / "run").string(), "--",
                                          ATTACH_TEST_APP, "steps", "3", "1"},
                                         o);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  const auto lines = linesWith(r.err, "control socket directory");
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_NE(lines[0].find(open.string() + " is open to other users (mode 0755, needs 0700)"),
            std::string::npos)
      << lines[0];
  EXPECT_NE(lines[0].find("attach is unavailable"), std::string::npos) << lines[0];
  EXPECT_TRUE(fs::is_empty(open));

  const ProcessResult ps = runBubblescope({"ps"}, o);
  EXPECT_EQ(ps.exitCode, 2);
  EXPECT_EQ(agentLines(ps.err).size(), 1u) << ps.err;
  EXPECT_NE(ps.err.find(open.string() + " is open to other users"), std::string::npos) << ps.err;
}

TEST(AgentAttach, BadTargetsAreOneLineEachWithExitCodeTwoAndGoodOnesStillStart) {
  DormantJob j({ATTACH_TEST_APP, "steps", "200", "30", "3"});
  ASSERT_TRUE(eventually(
      [&] {
        const json p = j.ps();
        return p.size() == 1 && p[0]["step"].get<int64_t>() >= 0;
      },
      kReady))
      << j.job().err();
  const std::string pid = std::to_string(j.ps()[0]["pid"].get<int>());
  // A pid that is gone: a child of ours, reaped.
  const pid_t gone = fork();
  if (gone == 0) _exit(0);
  waitpid(gone, nullptr, 0);
  const std::string self = std::to_string(getpid());

  const ProcessResult a =
      j.cli({"attach", pid, std::to_string(gone), self, "--steps", "2", "--wait"});
  EXPECT_EQ(a.exitCode, 2) << a.out << a.err;
  // One line per bad target. On a loaded machine the good one may pass the step it was told to
  // start at before the request lands: that is said on a line of its own, about the good pid.
  std::vector<std::string> lines;
  for (const std::string& l : agentLines(a.err)) {
    if (l.find("pid " + pid + " was already at step") == std::string::npos) lines.push_back(l);
  }
  ASSERT_EQ(lines.size(), 2u) << a.err;
  EXPECT_NE(a.err.find("pid " + std::to_string(gone) + ": no such process"), std::string::npos)
      << a.err;
  EXPECT_NE(a.err.find("pid " + self + " (agent_attach_t"), std::string::npos) << a.err;
  EXPECT_NE(a.err.find("not a bubblescope process"), std::string::npos) << a.err;
  // The good one started and finished all the same.
  EXPECT_EQ(linesWith(a.out, "pid " + pid + ": done").size(), 1u) << a.out;

  // Usage errors.
  EXPECT_EQ(j.cli({"attach", "--all"}).exitCode, 2);
  EXPECT_EQ(j.cli({"attach", pid, "--all", "--steps", "1"}).exitCode, 2);
  EXPECT_EQ(j.cli({"attach", pid, "--steps", "1", "--duration", "1"}).exitCode, 2);
  EXPECT_EQ(j.cli({"detach"}).exitCode, 2);
  const std::vector<std::vector<std::string>> bad = {{"attach", pid, "--steps", "0"},
                                                     {"attach", pid, "--steps", "two"},
                                                     {"attach", pid, "--steps", "-2"},
                                                     {"attach", pid, "--steps", "1.5"},
                                                     {"attach", pid, "--duration", "0"},
                                                     {"attach", pid, "--duration", "nan"},
                                                     {"attach", "12ab", "--steps", "1"},
                                                     {"detach", "--all", pid},
                                                     {"ps", "--steps", "2"}};
  for (const auto& args : bad) {
    const ProcessResult r = j.cli(args);
    EXPECT_EQ(r.exitCode, 2) << args[1] << " " << args[2] << "\n" << r.err;
    EXPECT_EQ(agentLines(r.err).size(), 1u) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  EXPECT_EQ(stateOf(j.ps()), "dormant") << "a refused attach started something";
  // Already recording: refused, one line.
  EXPECT_EQ(j.cli({"attach", pid, "--duration", "30"}).exitCode, 0);
  ASSERT_TRUE(eventually([&] { return stateOf(j.ps()) == "recording"; }, kReady))
      << j.ps().dump();  // it opens at the next step (30 ms)
  const ProcessResult twice = j.cli({"attach", pid, "--duration", "30"});
  EXPECT_EQ(twice.exitCode, 2);
  EXPECT_EQ(agentLines(twice.err).size(), 1u) << twice.err;
  EXPECT_NE(twice.err.find("already recording"), std::string::npos) << twice.err;
  EXPECT_EQ(j.cli({"detach", pid}).exitCode, 0);

  // The job's exit code is unchanged by all of this.
  EXPECT_EQ(j.finish(), 3) << j.job().err();

  // No process at all.
  TempDir empty;
  const ProcessResult none =
      runBubblescope({"attach", "--all", "--steps", "1"}, jobEnv(empty / "rt"));
  EXPECT_EQ(none.exitCode, 2);
  EXPECT_EQ(agentLines(none.err).size(), 1u) << none.err;
  EXPECT_NE(none.err.find("no attachable processes"), std::string::npos) << none.err;
}

TEST(AgentAttach, ForkChildDoesNotAnswerForItsParentAndStaleSocketsAreRemoved) {
  DormantJob j({ATTACH_TEST_APP, "fork-hold"});
  std::smatch m;
  std::string out;
  ASSERT_TRUE(eventually(
      [&] {
        out = j.job().out();
        return out.find("parent ") != std::string::npos && out.find("child ") != std::string::npos;
      },
      kReady))
      << j.job().err();
  std::regex_search(out, m, std::regex("parent (\\d+)"));
  const int parent = std::stoi(m[1]);
  std::regex_search(out, m, std::regex("child (\\d+)"));
  const int child = std::stoi(m[1]);

  const json list = j.ps();
  ASSERT_EQ(list.size(), 1u) << list.dump();
  EXPECT_EQ(list[0]["pid"], parent);
  const ProcessResult c = j.cli({"attach", std::to_string(child), "--steps", "1"});
  EXPECT_EQ(c.exitCode, 2);
  EXPECT_NE(c.err.find("has no control socket"), std::string::npos) << c.err;

  // The parent dies without removing its socket; the child lives on and must not keep the
  // parent's socket open (a client would then wait for an answer that never comes).
  ASSERT_EQ(kill(parent, SIGKILL), 0);
  const fs::path socket = j.runtimeDir() / (std::to_string(parent) + ".sock");
  ASSERT_TRUE(eventually([&] { return kill(parent, 0) != 0; }, seconds(10)));
  EXPECT_TRUE(fs::exists(socket));
  const auto t0 = std::chrono::steady_clock::now();
  const ProcessResult ps = j.cli({"ps", "--json"});
  EXPECT_LT(std::chrono::steady_clock::now() - t0, seconds(4)) << "ps waited for an answer";
  EXPECT_EQ(ps.exitCode, 0) << ps.err;
  EXPECT_EQ(json::parse(ps.out).size(), 0u) << ps.out;
  EXPECT_FALSE(fs::exists(socket)) << "the stale socket was left behind";
  EXPECT_EQ(kill(child, 0), 0) << "the child should still run";
}

}  // namespace
}  // namespace bubblescope::testing
