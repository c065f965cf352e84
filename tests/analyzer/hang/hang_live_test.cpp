// `bubblescope hang --all` / `--pid` on jobs that run now under a dormant agent (nothing is
// recorded, no trace file exists): engine pipelines that deadlock (--mismatch) or stop (--hang),
// a 4-rank NCCL job on the fake libnccl where one rank never enters a collective after a history
// longer than the agent keeps, and a healthy job, which must not be called hung. Each job has a
// runtime directory of its own, so --all finds only its processes.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/agent/agent_test_support.h"
#include "tests/agent/background_process.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"

namespace bubblescope::testing {
namespace {

using nlohmann::json;
using std::chrono::seconds;

class LiveJob {
 public:
  explicit LiveJob(const std::vector<std::string>& command,
                   std::map<std::string, std::string> extraEnv = {})
      : extraEnv_(std::move(extraEnv)) {
    std::vector<std::string> argv = {BUBBLESCOPE_BIN,         "record", "--dormant", "-o",
                                     (dir_ / "run").string(), "--"};
    argv.insert(argv.end(), command.begin(), command.end());
    std::filesystem::create_directories(dir_ / "logs");
    std::filesystem::create_directories(dir_ / "rt");
    std::filesystem::permissions(dir_ / "rt", std::filesystem::perms::owner_all);
    // The job's files (the engine's truth.json and the stages' working folder beside it, which a
    // killed job leaves) go to its directory, not to wherever the test runs.
    ProcessOptions job = env();
    job.workingDir = dir_.path().string();
    job_ = std::make_unique<BackgroundProcess>(argv, job, dir_ / "logs");
  }
  ~LiveJob() { job_.reset(); }  // kills the job's process group

  ProcessOptions env() const {
    std::map<std::string, std::string> env = extraEnv_;
    env["BUBBLESCOPE_RUNTIME_DIR"] = (dir_ / "rt").string();
    ProcessOptions o = cleanEnv(env);
    o.unsetEnv.push_back("XDG_RUNTIME_DIR");
    o.unsetEnv.push_back("LD_LIBRARY_PATH");
    o.timeout = seconds(30);
    return o;
  }

  ProcessResult hang(std::vector<std::string> args) const {
    args.insert(args.begin(), "hang");
    return runBubblescope(args, env());
  }

  // Asks until the report's verdict is `verdict` and `culprits` are named (the job needs a
  // moment to get stuck, and every rank's wait to outlast --min-wait), and every rank, or those
  // of the stages `waiting`, has a wait; the last answer.
  json until(const std::string& verdict, const json& culprits, bool everyRankWaits = false,
             const std::vector<int>& waiting = {}) {
    json report;
    eventually(
        [&] {
          last_ = hang({"--all", "--min-wait", "1", "--format", "json"});
          report = json::parse(last_.out, nullptr, false);
          if (report.is_discarded() || report["verdict"] != verdict ||
              report["culprits"] != culprits) {
            return false;
          }
          for (const json& r : report["ranks"]) {
            const bool waits = everyRankWaits || std::find(waiting.begin(), waiting.end(),
                                                           r["stage"].get<int>()) != waiting.end();
            if (waits && r["waits"].empty()) return false;
          }
          return true;
        },
        seconds(25));
    return report;
  }
  const ProcessResult& last() const { return last_; }
  bool running() { return job_->running(); }
  std::string log() const { return job_->err(); }

 private:
  std::map<std::string, std::string> extraEnv_;
  TempDir dir_;
  std::unique_ptr<BackgroundProcess> job_;
  ProcessResult last_;
};

std::vector<std::string> engine(std::vector<std::string> faults) {
  std::vector<std::string> cmd = {
      BUBBLESCOPE_BIN, "engine", "run", "--schedule", "1f1b", "-p", "4", "-m", "8",
      "--op-ms",       "2",      "-q",  "--timeout",  "60"};
  cmd.insert(cmd.end(), faults.begin(), faults.end());
  return cmd;
}

const json& stage(const json& report, int s) {
  for (const json& r : report["ranks"]) {
    if (r["stage"] == s) return r;
  }
  static const json kNone;
  return kNone;
}

TEST(HangLive, DormantEngineDeadlockNamesBothStagesAndWhatEachWaitsFor) {
  LiveJob job(engine({"--mismatch", "1:4"}));
  // Every stage's wait, not only the two in the cycle, has outlasted --min-wait.
  const json rep = job.until("deadlock", json::array({1, 2}), /*everyRankWaits=*/true);
  ASSERT_EQ(rep["verdict"], "deadlock") << job.last().out << job.last().err << job.log();
  EXPECT_EQ(job.last().exitCode, 1);
  ASSERT_EQ(rep["ranks"].size(), 4u);
  EXPECT_EQ(rep["culprits"], json::array({1, 2})) << rep["diagnosis"];
  const std::string diagnosis = rep["diagnosis"];
  EXPECT_EQ(diagnosis.rfind("deadlock: stage 1 waits in RECV B mb=3 from=2; stage 2 waits in "
                            "RECV F mb=4 from=1, which stage 1 sends only after that RECV",
                            0),
            0u)
      << diagnosis;
  for (const json& r : rep["ranks"]) {
    EXPECT_EQ(r["ended"], "running");
    EXPECT_EQ(r["step"], "step 0");
    ASSERT_EQ(r["waits"].size(), 1u) << r.dump();
    EXPECT_GT(r["waits"][0]["since_ns"].get<int64_t>(), 0);
    EXPECT_LE(r["waits"][0]["since_ns"].get<int64_t>(), r["alive_ns"].get<int64_t>());
  }
  EXPECT_EQ(stage(rep, 1)["waits"][0]["on"], json::array({2}));
  EXPECT_EQ(stage(rep, 2)["waits"][0]["on"], json::array({1}));
  EXPECT_TRUE(job.running()) << "asking must leave the job alone";
}

TEST(HangLive, AStageThatStoppedOutsideAnyWaitNeverSentWhatItsNeighboursWaitFor) {
  LiveJob job(engine({"--hang", "2:3"}));
  // Stage 1's receive may start a tick (0.1 s) after stage 3's: wait until it too has lasted
  // --min-wait (asked as soon as the verdict was in, its waits were once empty).
  const json rep = job.until("never-arrived", json::array({2}), false, {1});
  ASSERT_EQ(rep["verdict"], "never-arrived") << job.last().out << job.last().err << job.log();
  EXPECT_EQ(rep["culprits"], json::array({2})) << rep["diagnosis"];
  const std::string diagnosis = rep["diagnosis"];
  EXPECT_EQ(diagnosis.rfind("stage 2 never sent what ", 0), 0u) << diagnosis;
  EXPECT_TRUE(stage(rep, 2)["waits"].empty());
  EXPECT_EQ(stage(rep, 1)["waits"][0]["on"], json::array({2}));
}

TEST(HangLive, AJobAtWorkIsNoHang) {
  std::vector<std::string> cmd = engine({});
  cmd.insert(cmd.end(), {"--steps", "100000"});
  LiveJob job(cmd);
  // Wait until all four stages answer, then ask with a --min-wait no op of 2 ms reaches.
  json rep;
  ASSERT_TRUE(eventually(
      [&] {
        const ProcessResult r = job.hang({"--all", "--min-wait", "2", "--format", "json"});
        rep = json::parse(r.out, nullptr, false);
        return r.exitCode == 0 && !rep.is_discarded() && rep["ranks"].size() == 4;
      },
      seconds(25)))
      << job.last().out << job.log();
  EXPECT_EQ(rep["verdict"], "clean");
  EXPECT_EQ(rep["diagnosis"].get<std::string>().rfind("no hang: all 4 ranks answered", 0), 0u)
      << rep["diagnosis"];
}

// The ranges a dormant agent keeps for this answer, as a live query reads them back: every kind
// of push (nvtx_test_app open), each by the way its push takes (a short name in one load, a long
// one, one at a page's end, registered, Ex, wide, cut at the limit), and one range closed from
// the middle of its thread's stack, which leaves no trace.
TEST(HangLive, EveryKindOfRangeADormantJobLeftOpenIsNamed) {
  LiveJob job({kTestApp, "open"});
  const json expected = json::array({"F mb=3", "a name longer than sixteen bytes, forty",
                                     "at a page's end", "SEND F mb=3 to=2", "ex ascii",
                                     "wide \u00e9t\u00e9", std::string(119, 'a'), "above it"});
  json rep;
  ASSERT_TRUE(eventually(
      [&] {
        const ProcessResult r = job.hang({"--all", "--min-wait", "1", "--format", "json"});
        rep = json::parse(r.out, nullptr, false);
        return !rep.is_discarded() && rep["ranks"].size() == 1 &&
               rep["ranks"][0]["open"].size() == expected.size();
      },
      seconds(25)))
      << rep.dump(1) << job.log();
  EXPECT_EQ(rep["ranks"][0]["open"], expected) << rep.dump(1);
  EXPECT_TRUE(job.running()) << "asking must leave the job alone";
}

TEST(HangLive, NcclCollectiveOneRankNeverEntersAfterALongHistory) {
  // 3 + 100 all-reduces and 101 sends before it: far more than the 64 calls each agent keeps.
  const std::string ranks = std::string("for r in 0 1 2 3; do RANK=$r WORLD_SIZE=4 ") +
                            HANG_NCCL_APP +
                            " skip-collective --before 100 --linger 60 & done; wait";
  LiveJob job({"/bin/sh", "-c", ranks});
  const json rep = job.until("never-arrived", json::array({3}));
  ASSERT_EQ(rep["verdict"], "never-arrived") << job.last().out << job.last().err << job.log();
  EXPECT_EQ(rep["culprits"], json::array({3}));
  const std::string diagnosis = rep["diagnosis"];
  EXPECT_EQ(diagnosis.rfind("rank 3 never entered all-reduce #104 of comm 0x", 0), 0u) << diagnosis;
  for (int r : {0, 1, 2}) {
    const json& w = rep["ranks"][static_cast<size_t>(r)]["waits"];
    ASSERT_EQ(w.size(), 1u) << r << rep.dump(1);
    EXPECT_EQ(w[0]["on"], json::array({3}));
    EXPECT_TRUE(w[0]["nccl"].get<bool>());
  }
  // The 101 sends were all received: no p2p wait, though the histories dropped most of them.
  EXPECT_TRUE(rep["ranks"][3]["waits"].empty());

  // --pid asks the named processes only: the report is that of those ranks.
  // A live rank's "file" is its process: pid-N.
  auto pidOf = [&](int r) {
    return rep["ranks"][static_cast<size_t>(r)]["file"].get<std::string>().substr(4);
  };
  const std::string pids = pidOf(0) + "," + pidOf(3);
  const ProcessResult two = job.hang({"--pid", pids, "--min-wait", "1"});
  EXPECT_EQ(two.exitCode, 1) << two.err;
  EXPECT_NE(two.out.find("rank 3 never entered all-reduce #104"), std::string::npos) << two.out;

  // A job on two nodes: each saves what its processes answered (node A alone sees no wait: both
  // its ranks entered the all-reduce); the files read as one job.
  TempDir saved;
  const std::string a = (saved / "node-a.json").string(), b = (saved / "node-b.json").string();
  const ProcessResult nodeA =
      job.hang({"--pid", pidOf(0) + "," + pidOf(1), "--min-wait", "1", "--save", a});
  EXPECT_EQ(nodeA.exitCode, 0) << nodeA.out << nodeA.err;
  const ProcessResult nodeB =
      job.hang({"--pid", pidOf(2) + "," + pidOf(3), "--min-wait", "1", "--save", b});
  EXPECT_EQ(nodeB.exitCode, 1) << nodeB.out << nodeB.err;
  const ProcessResult joined = job.hang({a, b, "--min-wait", "1", "--format", "json"});
  EXPECT_EQ(joined.exitCode, 1) << joined.err;
  const json both = json::parse(joined.out, nullptr, false);
  ASSERT_FALSE(both.is_discarded()) << joined.out << joined.err;
  EXPECT_EQ(both["ranks"].size(), 4u);
  EXPECT_EQ(both["verdict"], "never-arrived");
  EXPECT_EQ(both["culprits"], json::array({3}));
  EXPECT_EQ(both["diagnosis"].get<std::string>().rfind(
                "rank 3 never entered all-reduce #104 of comm 0x", 0),
            0u)
      << both["diagnosis"];

  // The files keep the --min-wait they were taken with (issue 28): read without one, they find
  // the same hang (the default 5 s had called these waits of a second or two no hang).
  const ProcessResult kept = job.hang({a, b, "--format", "json"});
  EXPECT_EQ(kept.exitCode, 1) << kept.out << kept.err;
  // Re-serialised (compact, keys sorted: "answers" first, "kind" far from the start) a file is
  // still saved answers, not "JSON, but not a trace".
  const std::string sorted = (saved / "node-a-sorted.json").string();
  writeFile(sorted, json::parse(readFile(a)).dump());
  const ProcessResult resorted = job.hang({sorted, b, "--format", "json"});
  EXPECT_EQ(resorted.exitCode, 1) << resorted.out << resorted.err;
  // `check` given them, compact or not, says what they are.
  for (const std::string& answers : {a, sorted}) {
    const ProcessResult checked =
        testing::runBubblescope({"check", "--baseline", answers, answers});
    EXPECT_EQ(checked.exitCode, 2) << checked.out << checked.err;
    EXPECT_EQ(checked.err, "bubblescope: " + answers +
                               ": saved hang answers ('bubblescope hang --save'), not a report or "
                               "a trace; 'bubblescope hang " +
                               answers + "' reads them\n");
  }

  // A --run-id no saved answer has is one line and exit 2.
  const ProcessResult noRun = job.hang({a, b, "--run-id", "no-such-run"});
  EXPECT_EQ(noRun.exitCode, 2);
  EXPECT_NE(noRun.err.find("no answer of run 'no-such-run' among the 4 saved in " + a + " and " + b),
            std::string::npos)
      << noRun.err;

  // A file that is not saved answers is read as a run, and refused as one.
  const ProcessResult bad = job.hang({(saved / "nothing.json").string()});
  EXPECT_EQ(bad.exitCode, 2);
}

// NCCL linked in statically: the interposed API never sees the calls, NCCL's own NVTX ranges do
// (the fake library emits them as NCCL does), and the live history keeps them too.
TEST(HangLive, NcclLinkedStaticallyIsSeenThroughItsOwnNvtxRanges) {
  const std::string ranks = std::string("for r in 0 1 2 3; do RANK=$r WORLD_SIZE=4 ") +
                            HANG_NCCL_APP +
                            " skip-collective --before 100 --linger 60 --direct 1 & done; wait";
  LiveJob job({"/bin/sh", "-c", ranks}, {{"FAKE_NCCL_NVTX", "1"}});
  const json rep = job.until("never-arrived", json::array({3}));
  ASSERT_EQ(rep["verdict"], "never-arrived") << job.last().out << job.last().err << job.log();
  const std::string diagnosis = rep["diagnosis"];
  EXPECT_EQ(diagnosis.rfind("rank 3 never entered all-reduce #104 of comm 0x", 0), 0u) << diagnosis;
  for (int r : {0, 1, 2}) {
    const json& w = rep["ranks"][static_cast<size_t>(r)]["waits"];
    ASSERT_EQ(w.size(), 1u) << r << rep.dump(1);
    EXPECT_EQ(w[0]["on"], json::array({3}));
  }
  EXPECT_TRUE(rep["ranks"][3]["waits"].empty());
}

// A dormant job writes no traces to watch: `record --hang-timeout` asks its processes instead.
TEST(HangLive, DormantRecordWithHangTimeoutWritesTheReportFromTheLiveAnswers) {
  TempDir dir;
  std::filesystem::create_directories(dir / "rt");
  std::filesystem::permissions(dir / "rt", std::filesystem::perms::owner_all);
  ProcessOptions o = cleanEnv({{"BUBBLESCOPE_RUNTIME_DIR", (dir / "rt").string()}});
  o.unsetEnv.push_back("XDG_RUNTIME_DIR");
  o.timeout = seconds(60);
  o.workingDir = dir.path().string();  // the engine's truth.json and working folder
  std::vector<std::string> args = {
      "record", "--dormant", "--hang-timeout", "1", "-o", (dir / "run").string(), "--"};
  std::vector<std::string> job = engine({"--mismatch", "1:4"});
  // The engine's own watchdog ends the job after 15 s: the deadlock, a second without an op and
  // the processes' answers took over 6 s on a loaded machine (CI, twice in four runs).
  *(std::find(job.begin(), job.end(), "--timeout") + 1) = "15";
  args.insert(args.end(), job.begin(), job.end());
  const ProcessResult r = runBubblescope(args, o);
  EXPECT_NE(r.err.find("bubblescope: no rank has finished an op for 1 s: hang report in "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("(deadlock: stage 1 waits in RECV B mb=3 from=2; "), std::string::npos)
      << r.err;
  const json rep = json::parse(readFile(dir / "run" / "hang.json"), nullptr, false);
  ASSERT_FALSE(rep.is_discarded());
  EXPECT_EQ(rep["verdict"], "deadlock");
  EXPECT_EQ(rep["culprits"], json::array({1, 2}));
  EXPECT_EQ(rep["ranks"].size(), 4u);
  EXPECT_NE(readFile(dir / "run" / "hang.txt").find("wait-for graph:"), std::string::npos);
}

TEST(HangLive, UsageIsCheckedWithOneLine) {
  LiveJob job({"/bin/sleep", "30"});
  ProcessResult r = job.hang({"--all", "--pid", "1"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("give a run directory (post-mortem), or --all or --pid PID"),
            std::string::npos)
      << r.err;
  r = job.hang({"--pid", "999999999"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("pid 999999999"), std::string::npos) << r.err;
  TempDir dir;
  const std::string broken = (dir / "broken.json").string();
  std::ofstream(broken) << R"({"tool": "bubblescope", "kind": "hang-answers", "answers": 7})";
  r = job.hang({broken});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_EQ(r.err, "bubblescope: " + broken +
                       ": is not a file of answers saved by 'bubblescope hang --save'\n");
  // The first "kind" says answers, the parser keeps the last: that one was read as text
  // ('internal error: [json.exception.type_error.302] type must be string', exit 3).
  std::ofstream(broken) << R"({"kind": "hang-answers", "kind": 1, "answers": []})";
  r = job.hang({broken});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_EQ(r.err, "bubblescope: " + broken +
                       ": is not a file of answers saved by 'bubblescope hang --save'\n");
  // Nothing to judge is one line and exit 2, not a silent exit 2 (issue 28).
  const std::string empty = (dir / "empty.json").string();
  std::ofstream(empty) << R"({"tool": "bubblescope", "kind": "hang-answers", "answers": []})";
  r = job.hang({empty});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_EQ(r.err.rfind("bubblescope: " + empty + " holds no saved answers", 0), 0u) << r.err;
}

}  // namespace
}  // namespace bubblescope::testing
