// `bubblescope hang --all` started by mpirun with one process per node (issue 31). Here a "node"
// is an MPI process with a runtime directory of its own (mpirun's MPMD form gives each its own
// environment): the job's processes whose sockets are in one directory are invisible to the
// other's, as on two machines. A 4-rank NCCL job split 2 + 2 over two nodes gathers into the
// report that the two nodes' saved answers make; a node without processes is said once; a killed
// MPI process ends mpirun within seconds. Skipped where MPI was not built or mpirun is missing.
#include <signal.h>
#include <sys/types.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/agent/agent_test_support.h"
#include "tests/agent/background_process.h"
#include "tests/support/local_mpirun.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"

namespace bubblescope::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using std::chrono::seconds;

// A node: a runtime directory, and what hang runs with there.
struct Node {
  fs::path runtimeDir;
  std::vector<std::string> hangArgs;
  std::string pidFile;  // when set, the process writes its pid there first (to be killed)
};

bool haveMpi() {
  return std::string(MPIRUN).size() > 0 && fs::exists(MPIRUN);
}

fs::path runtimeDir(const TempDir& dir, const std::string& name) {
  const fs::path d = dir / name;
  fs::create_directories(d);
  fs::permissions(d, fs::perms::owner_all, fs::perm_options::replace);
  return d;
}

ProcessOptions options(seconds timeout = seconds(60)) {
  ProcessOptions o = cleanEnv();
  o.unsetEnv.push_back("XDG_RUNTIME_DIR");
  o.unsetEnv.push_back("BUBBLESCOPE_RUNTIME_DIR");
  o.unsetEnv.push_back("SLURM_STEP_NUM_TASKS");
  o.timeout = timeout;
  return o;
}

// mpirun with one process per node, each in its own environment (local_mpirun.h).
std::vector<std::string> mpirun(const std::vector<Node>& nodes) {
  std::vector<std::string> argv = localMpirun(MPIRUN);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (i > 0) argv.push_back(":");
    const Node& n = nodes[i];
    argv.insert(argv.end(),
                {"-np", "1", "env", "BUBBLESCOPE_RUNTIME_DIR=" + n.runtimeDir.string()});
    if (!n.pidFile.empty()) {
      // The shell's pid is the program's: it execs it.
      argv.insert(argv.end(), {"/bin/sh", "-c", "echo $$ > " + n.pidFile + "; exec \"$@\"", "sh"});
    }
    argv.insert(argv.end(), {BUBBLESCOPE_BIN, "hang", "--all"});
    argv.insert(argv.end(), n.hangArgs.begin(), n.hangArgs.end());
  }
  return argv;
}

// `bubblescope hang ARGS` alone, on one node.
ProcessResult hangOn(const fs::path& runtimeDir, std::vector<std::string> args) {
  ProcessOptions o = options();
  o.env["BUBBLESCOPE_RUNTIME_DIR"] = runtimeDir.string();
  args.insert(args.begin(), "hang");
  return runBubblescope(args, o);
}

// A dormant job whose processes put their sockets where `command` says (the job's own dir for
// its truth.json and logs).
std::unique_ptr<BackgroundProcess> dormantJob(const TempDir& dir, const std::string& runtime,
                                              const std::vector<std::string>& command) {
  std::vector<std::string> argv = {BUBBLESCOPE_BIN,        "record", "--dormant", "-o",
                                   (dir / "run").string(), "--"};
  argv.insert(argv.end(), command.begin(), command.end());
  fs::create_directories(dir / "logs");
  ProcessOptions o = options();
  if (!runtime.empty()) o.env["BUBBLESCOPE_RUNTIME_DIR"] = runtime;
  o.workingDir = dir.path().string();
  return std::make_unique<BackgroundProcess>(argv, o, dir / "logs");
}

std::vector<std::string> engine(const std::string& fault, const std::string& where) {
  return {BUBBLESCOPE_BIN, "engine", "run", "--schedule", "1f1b", "-p",  "4",  "-m", "8",
          "--op-ms",       "2",      "-q",  "--timeout",  "60",   fault, where};
}

// The report without when each rank was seen, the one field that moves between two askings.
json withoutAliveTimes(json report) {
  for (json& r : report["ranks"]) r.erase("alive_ns");
  return report;
}

// `later`, a report of the same hang asked for again, with each time an agent turned from its
// ticks into wall-clock ns taken from `first` where the two are within a microsecond. The agent
// interpolates between clock anchors it takes as it runs; asked again, it holds newer anchors
// around a wait's start and the same tick may land a few ns off (1 ns, on one run in twenty at
// load 8): far finer than a report's "since 03:18:17.727", and no other difference is excused.
json withTimesOf(const json& first, json later) {
  const auto align = [](const json& from, json& to, const char* field) {
    if (!from.contains(field) || !to.contains(field) || !from[field].is_number_integer() ||
        !to[field].is_number_integer()) {
      return;
    }
    if (std::llabs(from[field].get<int64_t>() - to[field].get<int64_t>()) <= 1000) {
      to[field] = from[field];
    }
  };
  if (!first.contains("ranks") || !later.contains("ranks")) return later;
  for (size_t r = 0; r < first["ranks"].size() && r < later["ranks"].size(); ++r) {
    const json& a = first["ranks"][r];
    json& b = later["ranks"][r];
    align(a, b, "last_op_end_ns");
    if (!a.contains("waits") || !b.contains("waits")) continue;
    for (size_t w = 0; w < a["waits"].size() && w < b["waits"].size(); ++w) {
      for (const char* field : {"since_ns", "unwound_ns", "kernel_launch_ns"}) {
        align(a["waits"][w], b["waits"][w], field);
      }
    }
  }
  return later;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

#define SKIP_WITHOUT_MPI()                                             \
  if (!haveMpi())                                                      \
  GTEST_SKIP() << "no MPI: the plugin was not built (libopenmpi-dev) " \
                  "or mpirun is missing"

TEST(HangMpi, TwoNodesGatherTheReportTheirSavedAnswersMakeWithTheWaitAcrossNodes) {
  SKIP_WITHOUT_MPI();
  TempDir dir;
  const fs::path a = runtimeDir(dir, "node-a"), b = runtimeDir(dir, "node-b");
  // Ranks 0 and 1 on node a, 2 and 3 on node b; rank 3 never enters the last all-reduce.
  const std::string app = std::string(HANG_NCCL_APP) + " skip-collective --linger 60";
  const std::string ranks = "for r in 0 1; do BUBBLESCOPE_RUNTIME_DIR=" + a.string() +
                            " RANK=$r WORLD_SIZE=4 " + app +
                            " & done; for r in 2 3; do BUBBLESCOPE_RUNTIME_DIR=" + b.string() +
                            " RANK=$r WORLD_SIZE=4 " + app + " & done; wait";
  const auto job = dormantJob(dir, "", {"/bin/sh", "-c", ranks});

  const std::vector<std::string> args = {"--min-wait", "1", "--format", "json"};
  ProcessResult gathered;
  json rep;
  ASSERT_TRUE(eventually(
      [&] {
        gathered = runProcess(mpirun({{a, args, ""}, {b, args, ""}}), options());
        rep = json::parse(gathered.out, nullptr, false);
        if (rep.is_discarded() || rep["culprits"] != json::array({3})) return false;
        for (int r : {0, 1, 2}) {
          if (rep["ranks"][static_cast<size_t>(r)]["waits"].empty()) return false;
        }
        return true;
      },
      seconds(40)))
      << gathered.out << gathered.err << job->err();
  // One report, from MPI rank 0 alone (two documents would not parse as one).
  EXPECT_EQ(gathered.exitCode, 1) << gathered.err;
  EXPECT_EQ(rep["verdict"], "never-arrived");
  ASSERT_EQ(rep["ranks"].size(), 4u);
  EXPECT_EQ(rep["diagnosis"].get<std::string>().rfind("rank 3 never entered all-reduce #", 0), 0u)
      << rep["diagnosis"];
  // Ranks 0 and 1 (node a) wait on rank 3 (node b): the graph crosses nodes.
  for (int from : {0, 1, 2}) {
    const json edge = {{"from", from}, {"to", 3}};
    EXPECT_NE(std::find_if(rep["edges"].begin(), rep["edges"].end(),
                           [&](const json& e) { return e["from"] == from && e["to"] == 3; }),
              rep["edges"].end())
        << edge << rep["edges"];
  }

  // The same as each node's answers saved apart and read together.
  const std::string savedA = (dir / "a.json").string(), savedB = (dir / "b.json").string();
  // Node a alone sees no wait: both its ranks entered the all-reduce; rank 3 is elsewhere.
  EXPECT_EQ(hangOn(a, {"--all", "--min-wait", "1", "--save", savedA}).exitCode, 0);
  EXPECT_EQ(hangOn(b, {"--all", "--min-wait", "1", "--save", savedB}).exitCode, 1);
  const ProcessResult files = hangOn(a, {savedA, savedB, "--format", "json"});
  EXPECT_EQ(files.exitCode, 1) << files.err;
  const json fromFiles = json::parse(files.out, nullptr, false);
  ASSERT_FALSE(fromFiles.is_discarded()) << files.out << files.err;
  const json expected = withoutAliveTimes(rep);
  const json got = withTimesOf(expected, withoutAliveTimes(fromFiles));
  EXPECT_EQ(expected, got) << json::diff(expected, got);

  // --save on rank 0 keeps every node's answers: read back, they make the very report printed.
  const std::string merged = (dir / "merged.json").string();
  const std::string printed = (dir / "report.json").string();
  std::vector<std::string> saving = args;
  saving.insert(saving.end(), {"--save", merged, "-o", printed});
  const ProcessResult saved = runProcess(mpirun({{a, saving, ""}, {b, saving, ""}}), options());
  EXPECT_EQ(saved.exitCode, 1) << saved.err;
  EXPECT_EQ(saved.out, "");
  const json answers = json::parse(readFile(merged), nullptr, false);
  ASSERT_FALSE(answers.is_discarded());
  EXPECT_EQ(answers["kind"], "hang-answers");
  EXPECT_EQ(answers["answers"].size(), 4u);
  const ProcessResult reread = hangOn(a, {merged, "--format", "json"});
  EXPECT_EQ(reread.out, readFile(printed));
}

TEST(HangMpi, ANodeWithoutProcessesIsSaidOnceAndTheOtherReports) {
  SKIP_WITHOUT_MPI();
  TempDir dir;
  const fs::path a = runtimeDir(dir, "node-a"), b = runtimeDir(dir, "node-b");
  const auto job = dormantJob(dir, a.string(), engine("--mismatch", "1:4"));
  const std::vector<std::string> args = {"--min-wait", "1"};
  ProcessResult r;
  ASSERT_TRUE(eventually(
      [&] {
        r = runProcess(mpirun({{a, args, ""}, {b, args, ""}}), options());
        return r.exitCode == 1 && count(r.out, "(on stage") == 4;
      },
      seconds(40)))
      << r.out << r.err << job->err();
  EXPECT_EQ(r.out.rfind("deadlock: stage 1 waits in RECV B mb=3 from=2; stage 2 waits in RECV F "
                        "mb=4 from=1",
                        0),
            0u)
      << r.out;
  EXPECT_EQ(count(r.err, "no attachable processes"), 1u) << r.err;
  EXPECT_NE(r.err.find("(MPI rank 1): no attachable processes\n"), std::string::npos) << r.err;

  // No node with any: one sentence, exit 2.
  const fs::path c = runtimeDir(dir, "node-c");
  const ProcessResult none = runProcess(mpirun({{b, {}, ""}, {c, {}, ""}}), options());
  EXPECT_EQ(none.exitCode, 2) << none.err;
  EXPECT_EQ(none.out, "");
  EXPECT_EQ(none.err, "bubblescope: none of the 2 nodes asked has attachable processes\n");
}

// Two nodes whose second one's MPI process is still asking (a stage of its job is stopped, so
// asking takes 3 s) while rank 0 waits for its answers: `signal` is sent to that MPI process
// then. Returns mpirun's exit code (-1: still running after `limit`) and how long it took.
struct Interrupted {
  int exitCode = -1;
  std::chrono::steady_clock::duration took{};
  std::string out, err;
};

// Connections made to the listening socket at `path` (/proc/net/unix lists each one, accepted or
// waiting in the backlog, with its listener's path).
int connectionsTo(const fs::path& path) {
  std::istringstream lines(readFile("/proc/net/unix"));
  int n = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.size() > path.string().size() &&
        line.compare(line.size() - path.string().size(), std::string::npos, path.string()) == 0) {
      ++n;
    }
  }
  return n - 1;  // the listener itself
}

Interrupted signalAMidQuery(int signal, seconds limit) {
  TempDir dir;
  const fs::path a = runtimeDir(dir, "node-a"), b = runtimeDir(dir, "node-b");
  const auto job = dormantJob(dir, b.string(), engine("--hang", "2:3"));
  std::vector<pid_t> stages;
  const bool started = eventually(
      [&] {
        stages.clear();
        for (const auto& e : fs::directory_iterator(b)) {
          // PID.sock; an agent still binding shows as .PID.sock.new (once under load, a stol
          // that threw).
          const std::string stem = e.path().stem().string();
          if (stem.empty() || stem.find_first_not_of("0123456789") != std::string::npos) continue;
          stages.push_back(static_cast<pid_t>(std::stol(stem)));
        }
        return stages.size() == 4;
      },
      seconds(20));
  EXPECT_TRUE(started) << job->err();
  if (!started || ::kill(stages[0], SIGSTOP) != 0) return {};

  const std::string pidFile = (dir / "rank-1.pid").string();
  BackgroundProcess mpi(mpirun({{a, {}, ""}, {b, {}, pidFile}}), options(), dir / "logs");
  // Signalled once it asks the stopped stage (so past MPI_Init, where a stopped peer would hold
  // everyone before hang's own deadline begins): a connection waits on that stage's socket.
  // (The agent binds its socket under a temporary name, which /proc/net/unix keeps showing.)
  const fs::path stopped = b / ("." + std::to_string(stages[0]) + ".sock.new");
  EXPECT_TRUE(eventually([&] { return connectionsTo(stopped) > 0; }, seconds(20)));
  EXPECT_TRUE(fs::exists(pidFile) && !readFile(pidFile).empty());
  const auto sent = std::chrono::steady_clock::now();
  EXPECT_EQ(::kill(static_cast<pid_t>(std::stol(readFile(pidFile))), signal), 0);
  Interrupted r;
  r.exitCode = mpi.wait(limit);
  r.took = std::chrono::steady_clock::now() - sent;
  r.out = mpi.out();
  r.err = mpi.err();
  ::kill(stages[0], SIGCONT);
  return r;
}

TEST(HangMpi, AKilledProcessEndsMpirunWithinSeconds) {
  SKIP_WITHOUT_MPI();
  const Interrupted r = signalAMidQuery(SIGKILL, seconds(20));
  EXPECT_NE(r.exitCode, -1) << "mpirun still runs 20 s after a process was killed";
  EXPECT_NE(r.exitCode, 0) << r.out << r.err;
  EXPECT_LT(r.took, seconds(10));
  EXPECT_EQ(r.out, "");
}

// A process that neither sends nor dies (stopped: mpirun does not end the job for it) is given up
// on: rank 0 says so and ends the job, rather than wait for ever.
TEST(HangMpi, AProcessThatNeverSendsIsGivenUpOnAfter30Seconds) {
  SKIP_WITHOUT_MPI();
  const Interrupted r = signalAMidQuery(SIGSTOP, seconds(60));
  EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
  EXPECT_LT(r.took, seconds(40));
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("bubblescope: MPI rank 0: not every process reported its answers' size "
                       "within 30 s (a process of the job died or hangs)\n"),
            std::string::npos)
      << r.err;
}

// What needs no mpirun: the launcher's variables alone make hang one process of several.
TEST(HangMpi, UnderALauncherAMissingPluginOrPidIsOneSentence) {
  TempDir dir;
  const fs::path a = runtimeDir(dir, "node-a");
  ProcessOptions o = options();
  o.unsetEnv.erase(std::remove(o.unsetEnv.begin(), o.unsetEnv.end(), "OMPI_COMM_WORLD_SIZE"),
                   o.unsetEnv.end());
  o.env = {{"OMPI_COMM_WORLD_SIZE", "2"},
           {"BUBBLESCOPE_RUNTIME_DIR", a.string()},
           {"BUBBLESCOPE_MPI_PLUGIN", (dir / "libbubblescope-mpi.so").string()}};
  const ProcessResult missing = runBubblescope({"hang", "--all"}, o);
  EXPECT_EQ(missing.exitCode, 2);
  EXPECT_EQ(missing.err.rfind("bubblescope: started by an MPI launcher (OMPI_COMM_WORLD_SIZE=2), "
                              "hang needs the MPI plugin, which is missing (looked for " +
                                  (dir / "libbubblescope-mpi.so").string(),
                              0),
            0u)
      << missing.err;
  EXPECT_EQ(count(missing.err, "\n"), 1u) << missing.err;

  const ProcessResult pid = runBubblescope({"hang", "--pid", "1"}, o);
  EXPECT_EQ(pid.exitCode, 2);
  EXPECT_EQ(pid.err,
            "bubblescope: --pid names processes of one node; started by an MPI launcher "
            "(OMPI_COMM_WORLD_SIZE=2), hang asks every node with --all (BUBBLESCOPE_MPI=0: one "
            "node alone)\n");

  // Turned off, it asks this node alone, as without a launcher.
  o.env["BUBBLESCOPE_MPI"] = "0";
  const ProcessResult alone = runBubblescope({"hang", "--all"}, o);
  EXPECT_EQ(alone.exitCode, 2);
  EXPECT_EQ(alone.err.rfind("bubblescope: no attachable processes (", 0), 0u) << alone.err;
}

}  // namespace
}  // namespace bubblescope::testing
