// `bubblescope hang` on real engine runs recorded by the agent: deadlocks from --mismatch on
// 1F1B, interleaved and ZB-H1, a stage that --hang stops, a stage that crashes, each stopped by
// the engine's watchdog (SIGTERM: the agent flushes) or by SIGKILL (the trace holds the last
// committed batch). The report must name the stage, the op it waits in and its peer, as truth.json
// says; a clean run reports no hang.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"

namespace bubblescope::testing {
namespace {

using nlohmann::json;

struct Debugged {
  ProcessResult record;
  json truth;  // null when the engine was killed before writing it
  ProcessResult hang;
  json report;
};

// Records `bubblescope engine run ARGS` (2 ms ops) and runs `bubblescope hang` on it. With
// `sigkill`, the whole job is killed with SIGKILL after `killAfter`; else the engine's --timeout
// (2 s) stops it.
Debugged recordAndDebug(const TempDir& dir, const std::vector<std::string>& engineArgs,
                        bool sigkill = false, int killAfter = 4, const char* timeout = "2") {
  const std::string run = (dir / "run").string();
  const std::string truth = (dir / "truth.json").string();
  std::vector<std::string> cmd = {BUBBLESCOPE_BIN,
                                  "record",
                                  "-o",
                                  run,
                                  "--",
                                  BUBBLESCOPE_BIN,
                                  "engine",
                                  "run",
                                  "--op-ms",
                                  "2",
                                  "--steps",
                                  "2",
                                  "--truth",
                                  truth,
                                  "-q",
                                  "--timeout",
                                  sigkill ? "120" : timeout};
  cmd.insert(cmd.end(), engineArgs.begin(), engineArgs.end());
  ProcessOptions o;
  o.unsetEnv = {"RANK", "LOCAL_RANK", "WORLD_SIZE", "LD_PRELOAD"};
  o.timeout = std::chrono::seconds(sigkill ? killAfter : 60);
  Debugged d;
  d.record = runProcess(cmd, o);
  if (std::filesystem::exists(truth)) d.truth = json::parse(readFile(truth));
  d.hang = runBubblescope({"hang", run, "--format", "json"});
  if (!d.hang.out.empty()) d.report = json::parse(d.hang.out, nullptr, false);
  return d;
}

const json& rankOfStage(const json& report, int stage) {
  for (const json& r : report["ranks"]) {
    if (r["stage"] == stage) return r;
  }
  static const json kNone;
  return kNone;
}

// The deadlock a mismatch makes: the report's culprit, waits and peers are the truth's.
void expectMismatchFound(const Debugged& d, const json& mm) {
  ASSERT_EQ(d.hang.exitCode, 1) << d.hang.err << d.hang.out;
  const json& rep = d.report;
  EXPECT_EQ(rep["verdict"], "deadlock") << rep["diagnosis"];
  const int stage = mm["stage"], peer = mm["peer"];
  ASSERT_FALSE(rep["culprits"].empty());
  EXPECT_EQ(rep["culprits"][0], stage) << rep["diagnosis"];
  const json& s = rankOfStage(rep, stage);
  const json& p = rankOfStage(rep, peer);
  ASSERT_FALSE(s["waits"].empty()) << rep.dump(1);
  ASSERT_FALSE(p["waits"].empty()) << rep.dump(1);
  EXPECT_EQ(s["waits"][0]["what"], mm["stage_waits"]);
  EXPECT_EQ(s["waits"][0]["on"], json::array({peer}));
  EXPECT_EQ(p["waits"][0]["what"], mm["peer_waits"]);
  EXPECT_EQ(p["waits"][0]["on"], json::array({stage}));
  const std::string sentence = "deadlock: stage " + std::to_string(stage) + " waits in " +
                               mm["stage_waits"].get<std::string>() + "; stage " +
                               std::to_string(peer) + " waits in " +
                               mm["peer_waits"].get<std::string>();
  EXPECT_EQ(rep["diagnosis"].get<std::string>().rfind(sentence, 0), 0u) << rep["diagnosis"];
  EXPECT_EQ(s["step"], "step 0");
  EXPECT_EQ(s["next_op_index"], mm["stops_at_op"]) << rep["diagnosis"];
  for (const json& r : rep["ranks"]) EXPECT_EQ(r["ended"], "stopped") << r["label"];
}

void mismatchCase(const std::vector<std::string>& args) {
  TempDir dir;
  const Debugged d = recordAndDebug(dir, args);
  ASSERT_EQ(d.record.exitCode, 3) << d.record.err;  // the watchdog ended it
  ASSERT_FALSE(d.truth.is_null()) << d.record.err;
  EXPECT_NE(d.truth["outcome"].get<std::string>().find("timed out"), std::string::npos);
  ASSERT_EQ(d.truth["faults"]["mismatches"].size(), 1u);
  expectMismatchFound(d, d.truth["faults"]["mismatches"][0]);
}

TEST(HangEngine, MismatchOn1F1BIsADeadlockBetweenTheStageAndItsNeighbour) {
  mismatchCase({"--schedule", "1f1b", "-p", "4", "-m", "8", "--mismatch", "1:4"});
}

TEST(HangEngine, MismatchOnInterleavedIsADeadlock) {
  mismatchCase({"--schedule", "interleaved", "-p", "4", "-m", "8", "--mismatch", "2:5"});
}

TEST(HangEngine, MismatchOnZbH1IsADeadlock) {
  mismatchCase({"--schedule", "zb-h1", "-p", "4", "-m", "8", "--mismatch", "1:4"});
}

TEST(HangEngine, MismatchStoppedBySigkillIsFoundFromTheLastCommittedBatch) {
  TempDir dir;
  const Debugged d =
      recordAndDebug(dir, {"--schedule", "1f1b", "-p", "4", "-m", "8", "--mismatch", "1:4"}, true);
  ASSERT_TRUE(d.record.timedOut);
  EXPECT_TRUE(d.truth.is_null());  // killed before it could write one
  // What the watchdog run's truth.json says for these flags (MismatchOn1F1B... checks that).
  expectMismatchFound(d, json{{"stage", 1},
                              {"peer", 2},
                              {"stage_waits", "RECV B mb=3 from=2"},
                              {"peer_waits", "RECV F mb=4 from=1"},
                              {"stops_at_op", 8}});
}

void expectStuckStage(const Debugged& d, int stage) {
  ASSERT_EQ(d.hang.exitCode, 1) << d.hang.err << d.hang.out;
  const json& rep = d.report;
  EXPECT_EQ(rep["verdict"], "never-arrived") << rep["diagnosis"];
  EXPECT_EQ(rep["culprits"], json::array({stage})) << rep["diagnosis"];
  const json& s = rankOfStage(rep, stage);
  EXPECT_TRUE(s["waits"].empty());
  EXPECT_EQ(s["open"], json::array({"step 0"}));
  EXPECT_EQ(rep["diagnosis"].get<std::string>().rfind(
                "stage " + std::to_string(stage) + " never sent", 0),
            0u)
      << rep["diagnosis"];
  // Its neighbours wait on it.
  for (int n : {stage - 1, stage + 1}) {
    const json& r = rankOfStage(rep, n);
    ASSERT_FALSE(r["waits"].empty()) << n;
    EXPECT_EQ(r["waits"][0]["on"], json::array({stage})) << r["waits"][0]["what"];
  }
}

TEST(HangEngine, HungStageIsTheOneEveryChainOfWaitsEndsAt) {
  TempDir dir;
  const Debugged d =
      recordAndDebug(dir, {"--schedule", "1f1b", "-p", "4", "-m", "8", "--hang", "2:3"});
  ASSERT_EQ(d.record.exitCode, 3) << d.record.err;
  ASSERT_EQ(d.truth["faults"]["hangs"].size(), 1u);
  EXPECT_EQ(d.truth["faults"]["hangs"][0]["stage"], 2);
  expectStuckStage(d, d.truth["faults"]["hangs"][0]["stage"]);
}

// Stage 1 stops before its first op: stages 2 and 3 block in their first receive having finished
// nothing. Their traces must still exist and say where they wait (open ranges alone open the
// file), or the report would hold stages 0 and 1 only.
TEST(HangEngine, StagesThatFinishedNothingStillSayWhereTheyWait) {
  TempDir dir;
  const Debugged d =
      recordAndDebug(dir, {"--schedule", "1f1b", "-p", "4", "-m", "8", "--hang", "1:0"});
  ASSERT_EQ(d.report["ranks"].size(), 4u) << d.hang.out << d.hang.err;
  expectStuckStage(d, 1);
  const json& last = rankOfStage(d.report, 3);
  ASSERT_EQ(last["waits"].size(), 1u);
  EXPECT_EQ(last["waits"][0]["what"], "RECV F mb=0 from=2");
  EXPECT_EQ(last["waits"][0]["on"], json::array({2}));
}

// Two of four ranks' traces copied: stage 1 waits on stage 2, whose trace is not there. The
// report says so, not that stage 1 "stopped outside any wait" (issue 28).
TEST(HangEngine, AWaitOnARankNotInTheRunSaysItsTraceIsMissing) {
  TempDir dir;
  const Debugged d =
      recordAndDebug(dir, {"--schedule", "1f1b", "-p", "4", "-m", "8", "--hang", "2:1"});
  ASSERT_EQ(d.record.exitCode, 3) << d.record.err;
  const auto part = dir / "part";
  std::filesystem::create_directories(part);
  for (const char* name : {"rank-00000.sqlite", "rank-00001.sqlite"}) {
    for (const std::string suffix : {"", "-wal"}) {
      const auto from = dir / "run" / (name + suffix);
      if (std::filesystem::exists(from)) std::filesystem::copy_file(from, part / (name + suffix));
    }
  }
  const ProcessResult r = runBubblescope({"hang", part.string(), "--format", "json"});
  ASSERT_EQ(r.exitCode, 1) << r.err << r.out;
  const json rep = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(rep.is_discarded()) << r.out;
  EXPECT_EQ(rep["verdict"], "never-arrived") << rep["diagnosis"];
  EXPECT_EQ(rep["culprits"], json::array({1}));
  const std::string diagnosis = rep["diagnosis"];
  EXPECT_EQ(diagnosis.rfind("stage 1 waits in RECV B mb=0 from=2 since ", 0), 0u) << diagnosis;
  EXPECT_NE(diagnosis.find("on stage 2, whose trace is not in the run"), std::string::npos)
      << diagnosis;
  EXPECT_EQ(diagnosis.find("stopped outside any wait"), std::string::npos) << diagnosis;
  EXPECT_EQ(rankOfStage(rep, 1)["waits"][0]["missing_stage"], 2);
}

TEST(HangEngine, HungStageStoppedBySigkillIsFound) {
  TempDir dir;
  const Debugged d =
      recordAndDebug(dir, {"--schedule", "1f1b", "-p", "4", "-m", "8", "--hang", "2:3"}, true);
  ASSERT_TRUE(d.record.timedOut);
  expectStuckStage(d, 2);
}

TEST(HangEngine, CrashedStageIsADeadRank) {
  TempDir dir;
  // The crash ends the run, not the watchdog (kept far off, so a loaded machine cannot race it).
  const Debugged d = recordAndDebug(
      dir, {"--schedule", "1f1b", "-p", "4", "-m", "8", "--crash", "2:3"}, false, 0, "30");
  ASSERT_EQ(d.record.exitCode, 3) << d.record.err;
  ASSERT_EQ(d.hang.exitCode, 1) << d.hang.err << d.hang.out;
  EXPECT_EQ(d.report["verdict"], "dead-rank") << d.report["diagnosis"];
  EXPECT_EQ(d.report["culprits"], json::array({2}));
  EXPECT_EQ(rankOfStage(d.report, 2)["ended"], "died");
}

TEST(HangEngine, CleanRunReportsNoHang) {
  TempDir dir;
  const Debugged d = recordAndDebug(dir, {"--schedule", "1f1b", "-p", "2", "-m", "4"});
  ASSERT_EQ(d.record.exitCode, 0) << d.record.err;
  EXPECT_EQ(d.hang.exitCode, 0) << d.hang.out;
  EXPECT_EQ(d.report["verdict"], "clean");
  EXPECT_TRUE(d.report["edges"].empty());
  for (const json& r : d.report["ranks"]) EXPECT_TRUE(r["open"].empty());
}

TEST(HangEngine, TextReportLeadsWithTheDiagnosis) {
  TempDir dir;
  const Debugged d =
      recordAndDebug(dir, {"--schedule", "1f1b", "-p", "4", "-m", "8", "--mismatch", "1:4"});
  const ProcessResult text = runBubblescope({"hang", (dir / "run").string()});
  EXPECT_EQ(text.exitCode, 1);
  EXPECT_EQ(text.out.rfind("deadlock: stage 1 waits in RECV B mb=3 from=2; stage 2 waits in "
                           "RECV F mb=4 from=1",
                           0),
            0u)
      << text.out;
  EXPECT_NE(text.out.find("wait-for graph:\n  stage 0 -> stage 1"), std::string::npos) << text.out;
}

TEST(HangEngine, RecordHangTimeoutWritesTheReportOnceAndLeavesTheJobAlone) {
  TempDir dir;
  const std::string run = (dir / "run").string();
  ProcessOptions o;
  o.unsetEnv = {"RANK", "LOCAL_RANK", "WORLD_SIZE", "LD_PRELOAD"};
  const ProcessResult r = runProcess({BUBBLESCOPE_BIN,
                                      "record",
                                      "-o",
                                      run,
                                      "--hang-timeout",
                                      "1",
                                      "--",
                                      BUBBLESCOPE_BIN,
                                      "engine",
                                      "run",
                                      "--schedule",
                                      "1f1b",
                                      "-p",
                                      "4",
                                      "-m",
                                      "8",
                                      "--op-ms",
                                      "2",
                                      "--truth",
                                      (dir / "truth.json").string(),
                                      "-q",
                                      "--timeout",
                                      "4",
                                      "--mismatch",
                                      "1:4"},
                                     o);
  EXPECT_EQ(r.exitCode, 3) << r.err;  // the engine's own watchdog, as without --hang-timeout
  const std::string line = "bubblescope: no rank has finished an op for 1 s: hang report in " +
                           run + "/hang.txt (deadlock: stage 1 waits in RECV B mb=3 from=2; ";
  const size_t at = r.err.find(line);
  ASSERT_NE(at, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("no rank has finished", at + line.size()), std::string::npos)
      << r.err;  // once
  EXPECT_EQ(readFile(dir / "run" / "hang.txt").rfind("deadlock: stage 1 waits in", 0), 0u);
  const json report = json::parse(readFile(dir / "run" / "hang.json"));
  EXPECT_EQ(report["verdict"], "deadlock");
  // The engine still ran to its own timeout: its truth says so.
  EXPECT_NE(readFile(dir / "truth.json").find("timed out after 4 s"), std::string::npos);
}

TEST(HangCli, BadInputIsOneSentenceAndExitTwo) {
  TempDir dir;
  const ProcessResult missing = runBubblescope({"hang", (dir / "nope").string()});
  EXPECT_EQ(missing.exitCode, 2);
  EXPECT_NE(missing.err.find("nope"), std::string::npos) << missing.err;
  const ProcessResult format = runBubblescope({"hang", dir.path().string(), "--format", "xml"});
  EXPECT_EQ(format.exitCode, 2);
  EXPECT_NE(format.err.find("--format"), std::string::npos) << format.err;
}

}  // namespace
}  // namespace bubblescope::testing
