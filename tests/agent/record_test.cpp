// `bubblescope record` end to end: a real program emitting NVTX under the agent, its trace read
// back through the reader and raw SQL.
#include <dlfcn.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <string>

#include "tests/agent/agent_test_support.h"
#include "tests/support/temp_dir.h"
#include "traces/sqlite/run_reader.h"
#include "traces/sqlite/trace_reader.h"

namespace bubblescope::testing {
namespace {

namespace fs = std::filesystem;

fs::path onlyTrace(const fs::path& dir) {
  const auto files = traceFiles(dir);
  EXPECT_EQ(files.size(), 1u);
  return files.empty() ? fs::path() : files[0];
}

TEST(AgentRecord, NestedRangesOnThreadsKeepNamesDepthThreadAndDomain) {
  TempDir tmp;
  const fs::path dir = tmp / "run";
  const int threads = 4, depth = 3, repeats = 5;
  const auto r = recordApp(
      dir, {"nested", std::to_string(threads), std::to_string(depth), std::to_string(repeats)}, {},
      cleanEnv());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const fs::path file = onlyTrace(dir);
  EXPECT_EQ(file.filename().string().rfind("pid-", 0), 0u);

  const traces::RankTrace t = traces::readRankTrace(file);
  EXPECT_EQ(t.ranges->size(), size_t(threads * repeats * (depth + 2) + 1));
  EXPECT_EQ(t.marks->size(), size_t(threads * repeats));
  EXPECT_EQ(sqlInt(file, "SELECT count FROM dropped_events WHERE source='nvtx'"), 0);

  const std::string names =
      "SELECT s.value, r.depth, r.tid, r.end_tid, d.value, r.kind, "
      "r.category, r.color, r.start, r.end FROM nvtx_ranges r "
      "JOIN strings s ON s.id = r.name_id JOIN strings d ON d.id = r.domain_id";
  std::map<std::string, std::set<std::string>> tidsOfThread;  // "t0" -> tids
  int registered = 0, wide = 0, crossing = 0;
  for (const auto& row : sqlRows(file, names)) {
    const std::string& name = row[0];
    if (name == "registered op") {
      ++registered;
      EXPECT_EQ(row[1], std::to_string(depth));
      EXPECT_EQ(row[4], "app");
      EXPECT_EQ(row[6], "7");
      EXPECT_EQ(row[7], std::to_string(0xFF00FF00u));
    } else if (name == "wide \xc3\xa9t\xc3\xa9") {  // "wide été", converted from wchar_t
      ++wide;
      EXPECT_EQ(row[1], std::to_string(depth));
      EXPECT_EQ(row[4], "");
    } else if (name == "crossing") {
      ++crossing;
      EXPECT_EQ(row[5], "1");     // start/end
      EXPECT_NE(row[2], row[3]);  // ended on another thread
    } else {
      ASSERT_EQ(name[0], 't') << name;  // "t<thread> d<depth> r<repeat>"
      const size_t d = name.find(" d"), rr = name.find(" r");
      EXPECT_EQ(row[1], name.substr(d + 2, rr - d - 2)) << name;
      EXPECT_EQ(row[2], row[3]);
      EXPECT_EQ(row[4], "");
      EXPECT_EQ(row[5], "0");
      tidsOfThread[name.substr(0, d)].insert(row[2]);
    }
  }
  EXPECT_EQ(registered, threads * repeats);
  EXPECT_EQ(wide, threads * repeats);
  EXPECT_EQ(crossing, 1);
  ASSERT_EQ(tidsOfThread.size(), size_t(threads));
  for (const auto& [thread, tids] : tidsOfThread) {
    EXPECT_EQ(tids.size(), 1u) << thread;  // every range of a thread on its own OS thread
    EXPECT_EQ(sqlText(file,
                      "SELECT s.value FROM threads t JOIN strings s ON s.id = t.name_id "
                      "WHERE t.tid = " +
                          *tids.begin()),
              "worker " + thread.substr(1));
  }
  // Nesting: every range lies inside the range one level up on its thread, at the same time.
  EXPECT_EQ(sqlInt(file,
                   "SELECT count(*) FROM nvtx_ranges c WHERE c.depth > 0 AND c.kind = 0 AND NOT "
                   "EXISTS (SELECT 1 FROM nvtx_ranges p WHERE p.tid = c.tid AND p.depth = "
                   "c.depth - 1 AND p.start <= c.start AND p.end >= c.end)"),
            0);
  EXPECT_EQ(sqlInt(file, "SELECT count(*) FROM nvtx_ranges WHERE end < start"), 0);
  // Marks carry their thread: "mark t0" on worker 0's thread.
  EXPECT_EQ(sqlInt(file,
                   "SELECT count(*) FROM nvtx_marks m JOIN strings s ON s.id = m.name_id "
                   "WHERE s.value = 'mark t0' AND m.tid = " +
                       *tidsOfThread["t0"].begin()),
            repeats);
  EXPECT_EQ(sqlText(file, "SELECT value FROM meta WHERE key = 'extra.nvtx_category.7'"), "compute");
}

TEST(AgentRecord, EveryNvtxModuleOfTheProcessIsRecordedOnOneStackPerThread) {
  TempDir tmp;
  const auto r = recordApp(tmp / "run", {"modules", "7"}, {}, cleanEnv());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const fs::path file = onlyTrace(tmp / "run");
  std::map<std::string, int> seen;
  for (const auto& row : sqlRows(file,
                                 "SELECT s.value, d.value, r.depth FROM nvtx_ranges r JOIN "
                                 "strings s ON s.id = r.name_id JOIN strings d ON d.id = "
                                 "r.domain_id")) {
    ++seen[row[0] + "|" + row[1] + "|" + row[2]];
  }
  // "outer" in the program, "module i" in the second module inside it, NCCL's range inside that.
  EXPECT_EQ(seen["outer||0"], 1);
  EXPECT_EQ(seen["ncclSend|NCCL|2"], 7);
  int module = 0;
  for (const auto& [key, n] : seen)
    module += key.rfind("module ", 0) == 0 && key.find("||1") != std::string::npos ? n : 0;
  EXPECT_EQ(module, 7);
  EXPECT_EQ(seen.size(), 9u);
}

TEST(AgentRecord, MetadataDescribesTheProcessAndTheCapture) {
  TempDir tmp;
  const fs::path dir = tmp / "run";
  const auto r = recordApp(
      dir, {"ranges", "20"}, {},
      cleanEnv(
          {{"RANK", "3"}, {"LOCAL_RANK", "1"}, {"WORLD_SIZE", "4"}, {"BUBBLESCOPE_PP_SIZE", "4"}}));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const fs::path file = onlyTrace(dir);
  EXPECT_EQ(file.filename(), "rank-00003.sqlite");
  const traces::RankMeta m = traces::readRankMeta(file);
  EXPECT_EQ(m.source, "bubblescope-agent");
  EXPECT_EQ(m.rank, 3);
  EXPECT_EQ(m.localRank, 1);
  EXPECT_EQ(m.worldSize, 4);
  EXPECT_FALSE(m.runId.empty());
  EXPECT_FALSE(m.host.empty());
  EXPECT_GT(m.pid, 0);
  EXPECT_NE(m.command.find("nvtx_test_app ranges 20"), std::string::npos) << m.command;
  EXPECT_FALSE(m.agentVersion.empty());
  EXPECT_FALSE(m.cudaCapture);
  EXPECT_FALSE(m.cudaNote.empty());
  EXPECT_EQ(m.extra.at("BUBBLESCOPE_PP_SIZE"), "4");
  EXPECT_EQ(m.extra.at("RANK"), "3");
  EXPECT_EQ(m.extra.at("BUBBLESCOPE_OUTPUT_DIR"), dir.string());
  EXPECT_EQ(m.extra.at("BUBBLESCOPE_RUN_ID"), m.runId);
  ASSERT_EQ(m.captureWindows.size(), 1u);
  EXPECT_EQ(m.captureWindows[0].reason, "record");
  EXPECT_GT(m.captureWindows[0].end, m.captureWindows[0].start);
  EXPECT_EQ(m.startNs, m.captureWindows[0].start);
  ASSERT_GE(m.clockAnchors.size(), 2u);  // at start and at close
  EXPECT_GT(m.clockAnchors.back().realtimeNs, m.clockAnchors.front().realtimeNs);
  EXPECT_EQ(m.dropped.at("nvtx"), 0u);
  // Every range inside the window, in CLOCK_REALTIME ns.
  EXPECT_EQ(sqlInt(file, "SELECT count(*) FROM nvtx_ranges WHERE start >= " +
                             std::to_string(m.captureWindows[0].start) +
                             " AND end <= " + std::to_string(m.captureWindows[0].end)),
            20);
  EXPECT_NE(r.err.find("traces in " + dir.string() + ": 1 rank"), std::string::npos) << r.err;
}

TEST(AgentRecord, RankVariableWithPathCharactersNeverReachesAPath) {
  TempDir tmp;
  const fs::path dir = tmp / "a" / "b" / "run";
  const auto r = recordApp(dir, {"ranges", "5"}, {}, cleanEnv({{"RANK", "../../../x"}}));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto files = traceFiles(dir);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].filename().string().rfind("pid-", 0), 0u) << files[0];
  // Nothing anywhere else under the temporary directory.
  size_t entries = 0;
  for (const auto& e : fs::recursive_directory_iterator(tmp.path())) {
    (void)e;
    ++entries;
  }
  EXPECT_EQ(entries, 3u + files.size());  // a, a/b, a/b/run, the trace
  const auto lines = agentLines(r.err);
  const auto warning = std::count_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find("RANK='../../../x'") != std::string::npos;
  });
  EXPECT_EQ(warning, 1) << r.err;
  EXPECT_EQ(traces::readRankMeta(files[0]).rank, -1);
}

TEST(AgentRecord, ExitCodeOfTheCommandPassesThrough) {
  TempDir tmp;
  EXPECT_EQ(recordApp(tmp / "a", {"ranges", "3", "0"}, {}, cleanEnv()).exitCode, 0);
  EXPECT_EQ(recordApp(tmp / "b", {"ranges", "3", "3"}, {}, cleanEnv()).exitCode, 3);
  EXPECT_EQ(recordApp(tmp / "c", {"raise", "3", "9"}, {}, cleanEnv()).exitCode, 128 + 9);
  EXPECT_EQ(recordApp(tmp / "d", {"raise", "3", "15"}, {}, cleanEnv()).exitCode, 128 + 15);
}

TEST(AgentRecord, BadUsageIsOneLineAndExitCode2) {
  TempDir tmp;
  const std::vector<std::vector<std::string>> cases = {
      {"record"},
      {"record", "--"},
      {"record", "-o", (tmp / "x").string(), kTestApp, "none"},
      {"record", "--frobnicate", "--", kTestApp},
      {"record", "--cuda", "maybe", "--", kTestApp},
      {"record", "--", "no-such-command-bubblescope"},
  };
  for (const auto& args : cases) {
    const auto r = runBubblescope(args, cleanEnv());
    EXPECT_EQ(r.exitCode, 2) << args.back() << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("bubblescope: ", 0), 0u) << r.err;
  }
  EXPECT_FALSE(fs::exists(tmp / "x"));

  const auto missing = runBubblescope({"record", "--", kTestApp, "none"},
                                      cleanEnv({{"BUBBLESCOPE_AGENT", (tmp / "no.so").string()}}));
  EXPECT_EQ(missing.exitCode, 2) << missing.err;
  EXPECT_NE(missing.err.find("BUBBLESCOPE_AGENT names a missing file"), std::string::npos);
}

TEST(AgentRecord, NoCudaDriverIsOneLineAndNvtxCaptureGoesOn) {
  if (void* driver = dlopen("libcuda.so.1", RTLD_LAZY)) {
    dlclose(driver);
    GTEST_SKIP() << "a CUDA driver is installed here";
  }
  TempDir tmp;
  const auto r = recordApp(tmp / "run", {"nested", "3", "2", "2"}, {}, cleanEnv());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto lines = agentLines(r.err);
  ASSERT_EQ(lines.size(), 2u) << r.err;  // the CUDA line, then where the traces went
  EXPECT_NE(lines[0].find("CUDA capture is off, NVTX and NCCL capture go on"), std::string::npos);
  const fs::path file = onlyTrace(tmp / "run");
  EXPECT_GT(traces::readRankTrace(file).ranges->size(), 0u);
  EXPECT_NE(traces::readRankMeta(file).cudaNote.find("no CUDA driver"), std::string::npos);

  const auto off = recordApp(tmp / "off", {"ranges", "1"}, {"--cuda", "off"}, cleanEnv());
  EXPECT_EQ(agentLines(off.err).size(), 1u) << off.err;  // only where the traces went
}

TEST(AgentRecord, SecondRunInTheSameDirectoryDoesNotOverwriteOrClaimTheRank) {
  TempDir tmp;
  const fs::path dir = tmp / "run";
  ASSERT_EQ(recordApp(dir, {"ranges", "4"}, {}, cleanEnv({{"RANK", "0"}})).exitCode, 0);
  const auto again = recordApp(dir, {"ranges", "6"}, {}, cleanEnv({{"RANK", "0"}}));
  ASSERT_EQ(again.exitCode, 0) << again.err;
  const auto files = traceFiles(dir);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(traces::readRankTrace(dir / "rank-00000.sqlite").ranges->size(), 4u);
  const fs::path second = files[0].filename() == "rank-00000.sqlite" ? files[1] : files[0];
  EXPECT_EQ(second.filename().string().rfind("rank-0.pid-", 0), 0u) << second;
  const traces::RankTrace t = traces::readRankTrace(second);
  EXPECT_EQ(t.ranges->size(), 6u);
  EXPECT_EQ(t.meta.rank, -1);
  EXPECT_EQ(t.meta.extra.at("claimed_rank"), "0");
  const auto lines = agentLines(again.err);
  EXPECT_EQ(
      std::count_if(lines.begin(), lines.end(),
                    [](const std::string& l) { return l.find("exists") != std::string::npos; }),
      1)
      << again.err;
  EXPECT_NE(again.err.find("1 process (no launcher rank) (beside 1 earlier trace)"),
            std::string::npos)
      << again.err;
}

TEST(AgentRecord, ProcessThatEmitsNothingLeavesNoFile) {
  TempDir tmp;
  const auto r = recordApp(tmp / "run", {"none"}, {}, cleanEnv());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(traceFiles(tmp / "run").empty());
  EXPECT_NE(r.err.find("nothing was recorded"), std::string::npos) << r.err;
}

TEST(AgentRecord, ForkedChildWritesItsOwnValidFileNotTheParents) {
  TempDir tmp;
  const fs::path dir = tmp / "run";
  const auto r = recordApp(dir, {"fork", "10"}, {}, cleanEnv({{"RANK", "2"}}));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto files = traceFiles(dir);
  ASSERT_EQ(files.size(), 2u) << r.err;
  const fs::path parent = dir / "rank-00002.sqlite";
  ASSERT_TRUE(fs::exists(parent));
  const fs::path child = files[0] == parent ? files[1] : files[0];
  EXPECT_EQ(child.filename().string().rfind("pid-", 0), 0u) << child;

  const traces::RankTrace p = traces::readRankTrace(parent);
  const traces::RankTrace c = traces::readRankTrace(child);
  EXPECT_EQ(p.ranges->size(), 20u);
  EXPECT_EQ(c.ranges->size(), 10u);
  EXPECT_EQ(sqlInt(parent,
                   "SELECT count(*) FROM nvtx_ranges r JOIN strings s ON s.id = r.name_id "
                   "WHERE s.value LIKE 'child%'"),
            0);
  EXPECT_EQ(sqlInt(child,
                   "SELECT count(*) FROM nvtx_ranges r JOIN strings s ON s.id = r.name_id "
                   "WHERE s.value LIKE 'child%'"),
            10);
  EXPECT_EQ(p.meta.rank, 2);
  EXPECT_EQ(c.meta.rank, -1);
  EXPECT_EQ(c.meta.extra.at("parent_pid"), std::to_string(p.meta.pid));
  EXPECT_EQ(c.meta.extra.at("parent_rank"), "2");
  EXPECT_NE(c.meta.pid, p.meta.pid);
  // The child's window begins at its birth.
  ASSERT_EQ(c.meta.captureWindows.size(), 1u);
  EXPECT_EQ(c.meta.captureWindows[0].reason, "fork");
  EXPECT_NO_THROW(traces::readRun(dir));  // no two files claim one rank
}

TEST(AgentRecord, DormantRecordsNothingAndLeavesNoFile) {
  TempDir tmp;
  const auto r = recordApp(tmp / "run", {"ranges", "50"}, {"--dormant"}, cleanEnv());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(traceFiles(tmp / "run").empty());
}

TEST(AgentRecord, DormantControlMarksOpenAndCloseAWindow) {
  TempDir tmp;
  const auto r = recordApp(tmp / "run", {"dormant"}, {"--dormant"}, cleanEnv());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const fs::path file = onlyTrace(tmp / "run");
  const auto rows = sqlRows(file,
                            "SELECT s.value FROM nvtx_ranges r JOIN strings s ON "
                            "s.id = r.name_id ORDER BY r.start");
  std::vector<std::string> names;
  for (const auto& row : rows) names.push_back(row[0]);
  EXPECT_EQ(names,
            (std::vector<std::string>{"during 0", "during 1", "during 2", "during 3", "during 4"}));
  const traces::RankMeta m = traces::readRankMeta(file);
  ASSERT_EQ(m.captureWindows.size(), 1u);
  EXPECT_EQ(m.captureWindows[0].reason, "nvtx mark: start");
  EXPECT_GT(m.captureWindows[0].end, m.captureWindows[0].start);
}

TEST(AgentRecord, StepWindowCapturesExactlyTheRequestedSteps) {
  TempDir tmp;
  const auto r = recordApp(tmp / "run", {"steps", "8"}, {"--dormant"}, cleanEnv());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const fs::path file = onlyTrace(tmp / "run");
  std::vector<std::string> names;
  for (const auto& row : sqlRows(file,
                                 "SELECT s.value, r.depth FROM nvtx_ranges r JOIN strings "
                                 "s ON s.id = r.name_id ORDER BY r.start")) {
    names.push_back(row[0] + "@" + row[1]);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"step 3@0", "F s3 0@1", "B s3 0@1", "step 4@0",
                                             "F s4 0@1", "B s4 0@1"}));
}

TEST(AgentRecord, ThirtyTwoThreadsLoseNothingUncounted) {
  TempDir tmp;
  const auto r = recordApp(tmp / "run", {"stress", "32", "100000"}, {}, cleanEnv());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const fs::path file = onlyTrace(tmp / "run");
  const int64_t recorded = sqlInt(file, "SELECT count(*) FROM nvtx_ranges");
  const int64_t dropped = sqlInt(file, "SELECT count FROM dropped_events WHERE source = 'nvtx'");
  EXPECT_EQ(recorded + dropped, 32 * 100000) << "recorded " << recorded << ", dropped " << dropped;
  EXPECT_GT(recorded, 0);
  EXPECT_EQ(
      sqlInt(file, "SELECT count(DISTINCT tid) FROM nvtx_ranges"),
      sqlInt(file, "SELECT count(*) FROM threads WHERE tid IN (SELECT tid FROM nvtx_ranges)"));
}

TEST(AgentRecord, BuffersLargeEnoughForTheBurstDropNothing) {
  TempDir tmp;
  const auto r = recordApp(tmp / "run", {"stress", "4", "20000"}, {},
                           cleanEnv({{"BUBBLESCOPE_BUFFER_KB", "4096"}}));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const fs::path file = onlyTrace(tmp / "run");
  EXPECT_EQ(sqlInt(file, "SELECT count(*) FROM nvtx_ranges"), 4 * 20000);
  EXPECT_EQ(sqlInt(file, "SELECT count FROM dropped_events WHERE source = 'nvtx'"), 0);
}

}  // namespace
}  // namespace bubblescope::testing
