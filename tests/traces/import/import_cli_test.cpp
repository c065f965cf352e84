// `bubblescope import` as a user runs it: a run directory out and a table of what came in; bad
// input is exit code 2 with one line naming the file.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <future>

#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "tests/traces/import/shared_data.h"
#include "traces/sqlite/run_reader.h"

namespace bubblescope {
namespace {

using testing::readFile;
using testing::runBubblescope;
using testing::sharedData;
using testing::TempDir;
using testing::writeFile;

// Exit code 2 and exactly one line on stderr that contains `what`.
void expectBadInput(const testing::ProcessResult& r, const std::string& what) {
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
}

TEST(ImportCli, KinetoFilesBecomeARunDirectoryWithASummary) {
  SKIP_WITHOUT_SHARED_DATA();
  TempDir dir;
  const auto r = runBubblescope({"import", "kineto",
                                 sharedData("kineto/hta-ws128-sampled-rank0.json.gz").string(),
                                 sharedData("kineto/hta-ws128-sampled-rank1.json.gz").string(),
                                 "-o", (dir / "run").string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("imported 2 files (Kineto JSON)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 ranks of a world of 128"), std::string::npos) << r.out;
  const traces::Run run = traces::readRun(dir / "run");
  ASSERT_EQ(run.ranks.size(), 2u);
  EXPECT_EQ(run.ranks[0].file.filename(), "rank-00000.sqlite");
  EXPECT_EQ(run.ranks[0].meta.source, "kineto");
  EXPECT_EQ(run.ranks[0].kernels->size(), 1154u);
  EXPECT_EQ(run.ranks[1].kernels->size(), 1104u);
  EXPECT_EQ(run.ranks[1].meta.worldSize, 128);
}

// NDTimeline as ByteDance publishes it: thread names after all the events, one file of 8 ranks.
TEST(ImportCli, ThePublishedNdTimelineBecomesOneRankFilePerPipelineRank) {
  SKIP_WITHOUT_SHARED_DATA();
  TempDir dir;
  const auto r = runBubblescope({"import", "kineto",
                                 sharedData("ndtimeline/bytedance-st-timeline.json.gz").string(),
                                 "-o", (dir / "run").string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("NDTimeline timeline: 8 ranks (PP 4 x TP 1 x DP 2)"), std::string::npos)
      << r.out;
  const traces::Run run = traces::readRun(dir / "run");
  ASSERT_EQ(run.ranks.size(), 8u);
  for (int i = 0; i < 8; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "rank-%05d.sqlite", i);
    EXPECT_TRUE(std::filesystem::exists(dir / "run" / name)) << name;
    EXPECT_EQ(run.ranks[i].meta.source, "ndtimeline");
    EXPECT_EQ(run.ranks[i].meta.extra.at("BUBBLESCOPE_PP_SIZE"), "4");
    EXPECT_EQ(run.ranks[i].meta.extra.at("BUBBLESCOPE_DP_SIZE"), "2");
  }
}

TEST(ImportCli, TracesWithoutRankIdsAreNumberedInNameOrderInTheirFiles) {
  TempDir dir;
  std::filesystem::create_directory(dir / "in");
  const std::string trace =
      R"J({"schemaVersion": 1, "traceEvents": [{"ph": "X", "cat": "user_annotation",
          "name": "ProfilerStep#1", "pid": 7, "tid": 7, "ts": 1, "dur": 1}]})J";
  writeFile(dir / "in" / "worker10.json", trace);
  writeFile(dir / "in" / "worker9.json", trace);
  const auto r =
      runBubblescope({"import", "kineto", (dir / "in").string(), "-o", (dir / "run").string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("ranks numbered in file name order"), std::string::npos) << r.out;
  const traces::Run run = traces::readRun(dir / "run");
  ASSERT_EQ(run.ranks.size(), 2u);
  EXPECT_EQ(run.ranks[0].file.filename(), "rank-00000.sqlite");
  EXPECT_EQ(run.ranks[0].meta.rank, 0);
  EXPECT_EQ(run.ranks[1].meta.rank, 1);
  for (const auto& e : std::filesystem::directory_iterator(dir / "run")) {
    EXPECT_FALSE(e.path().filename().string().starts_with(".importing")) << e.path();
  }
}

// Imported traces are read by whoever analyses the run: under umask 022 they are 0644, as any
// tool's output (they were 0600).
TEST(ImportCli, ImportedTracesFollowTheUmask) {
  TempDir dir;
  std::filesystem::create_directory(dir / "in");
  writeFile(dir / "in" / "worker0.json",
            R"J({"schemaVersion": 1, "traceEvents": [{"ph": "X", "cat": "user_annotation",
                "name": "ProfilerStep#1", "pid": 7, "tid": 7, "ts": 1, "dur": 1}]})J");
  std::vector<std::string> argv = {"/bin/sh", "-c", "umask 022 && exec \"$@\"", "sh"};
  for (const std::string& a : testing::bubblescopeArgv(
           {"import", "kineto", (dir / "in").string(), "-o", (dir / "run").string()})) {
    argv.push_back(a);
  }
  const auto r = testing::runProcess(argv);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(std::filesystem::status(dir / "run" / "rank-00000.sqlite").permissions() &
                std::filesystem::perms::all,
            std::filesystem::perms(0644));
}

// Two identical imports started at once into one new directory each write their own temporary
// files (they shared `.importing-0.sqlite` and broke each other with "disk I/O error", issue 28):
// both succeed and the run holds whole rank files.
TEST(ImportCli, TwoImportsIntoOneDirectoryAtOnceBothSucceed) {
  TempDir dir;
  std::filesystem::create_directory(dir / "in");
  std::string events;
  for (int i = 0; i < 20000; ++i) {
    events += R"J(,{"ph": "X", "cat": "user_annotation", "name": "work", "pid": 7, "tid": 7,
                  "ts": )J" +
              std::to_string(10 + 3 * i) + R"J(, "dur": 2})J";
  }
  const std::string trace =
      R"J({"schemaVersion": 1, "traceEvents": [{"ph": "X", "cat": "user_annotation",
          "name": "ProfilerStep#1", "pid": 7, "tid": 7, "ts": 1, "dur": 1})J" +
      events + "]}";
  writeFile(dir / "in" / "worker0.json", trace);
  writeFile(dir / "in" / "worker1.json", trace);
  const std::vector<std::string> args = {"import", "kineto", (dir / "in").string(), "-o",
                                         (dir / "run").string()};
  auto first = std::async(std::launch::async, [&] { return runBubblescope(args); });
  auto second = std::async(std::launch::async, [&] { return runBubblescope(args); });
  const auto a = first.get(), b = second.get();
  // The second may find the first's files already there ("exists and is not empty"): refused
  // cleanly, or both went through; never a broken file.
  for (const auto* r : {&a, &b}) {
    EXPECT_TRUE(r->exitCode == 0 || r->exitCode == 2) << r->err;
    EXPECT_EQ(r->err.find("disk I/O error"), std::string::npos) << r->err;
  }
  EXPECT_TRUE(a.exitCode == 0 || b.exitCode == 0) << a.err << b.err;
  const traces::Run run = traces::readRun(dir / "run");
  EXPECT_EQ(run.ranks.size(), 2u);
  for (const auto& e : std::filesystem::directory_iterator(dir / "run")) {
    EXPECT_FALSE(e.path().filename().string().starts_with(".importing")) << e.path();
  }
}

TEST(ImportCli, TheNsysFixturesTwoGpusBecomeTwoRankFiles) {
  SKIP_WITHOUT_SHARED_DATA();
  TempDir dir;
  const auto r =
      runBubblescope({"import", "nsys", sharedData("nsys/nsys-ai-h100-2gpu-fsdp.sqlite").string(),
                      "-o", (dir / "run").string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const traces::Run run = traces::readRun(dir / "run");
  ASSERT_EQ(run.ranks.size(), 2u);
  EXPECT_EQ(run.ranks[0].meta.source, "nsys");
  EXPECT_EQ(run.ranks[1].kernels->size(), 1721u);
  EXPECT_EQ(run.ranks[1].meta.pid, 112);
}

TEST(ImportCli, TruncatedGzipIsExitTwoNamingTheFile) {
  SKIP_WITHOUT_SHARED_DATA();
  TempDir dir;
  const std::string gz = readFile(sharedData("kineto/hta-ddp2-rank0-nccl.json.gz"));
  writeFile(dir / "rank0.json.gz", gz.substr(0, gz.size() / 2));
  expectBadInput(runBubblescope({"import", "kineto", (dir / "rank0.json.gz").string(), "-o",
                                 (dir / "run").string()}),
                 (dir / "rank0.json.gz").string() + ": truncated gzip data");
}

TEST(ImportCli, JsonThatIsNotATraceIsExitTwo) {
  TempDir dir;
  writeFile(dir / "config.json", "{\"hidden\": 4096}");
  expectBadInput(runBubblescope({"import", "kineto", (dir / "config.json").string(), "-o",
                                 (dir / "run").string()}),
                 "config.json: JSON, but not a trace");
}

TEST(ImportCli, AnNsysExportWithoutGpuTablesIsExitTwo) {
  TempDir dir;
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir / "cpu.sqlite").c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "CREATE TABLE NVTX_EVENTS(start INTEGER, end INTEGER, eventType INTEGER)",
               nullptr, nullptr, nullptr);
  sqlite3_close(db);
  expectBadInput(runBubblescope({"import", "nsys", (dir / "cpu.sqlite").string(), "-o",
                                 (dir / "run").string()}),
                 "cpu.sqlite: an Nsight Systems export without GPU activity");
}

TEST(ImportCli, TwoFilesClaimingOneRankAreExitTwo) {
  SKIP_WITHOUT_SHARED_DATA();
  TempDir dir;
  std::filesystem::create_directory(dir / "in");
  const auto rank0 = sharedData("kineto/hta-ws128-sampled-rank0.json.gz");
  std::filesystem::copy_file(rank0, dir / "in" / "a.json.gz");
  std::filesystem::copy_file(rank0, dir / "in" / "b.json.gz");
  expectBadInput(
      runBubblescope({"import", "kineto", (dir / "in").string(), "-o", (dir / "run").string()}),
      "b.json.gz: claims rank 0, as a.json.gz does");
  EXPECT_FALSE(std::filesystem::exists(dir / "run"));  // nothing half-written is left
}

TEST(ImportCli, RanksOfTwoJobsAreExitTwo) {
  SKIP_WITHOUT_SHARED_DATA();
  TempDir dir;
  // Rank 0 of a 2-rank DDP job and rank 1 of a 128-rank one: no rank clash, but not one run.
  expectBadInput(
      runBubblescope({"import", "kineto", sharedData("kineto/hta-ddp2-rank0-nccl.json.gz").string(),
                      sharedData("kineto/hta-ws128-sampled-rank1.json.gz").string(), "-o",
                      (dir / "run").string()}),
      "hta-ws128-sampled-rank1.json.gz: is of a world of 128 ranks, "
      "hta-ddp2-rank0-nccl.json.gz of 2: traces of two jobs");
  EXPECT_FALSE(std::filesystem::exists(dir / "run"));
}

TEST(ImportCli, ATraceWithoutARankBesideRankedOnesIsExitTwo) {
  SKIP_WITHOUT_SHARED_DATA();
  TempDir dir;
  writeFile(dir / "single.json",
            R"J({"schemaVersion": 1, "traceEvents": [{"ph": "X", "cat": "cpu_op",
                "name": "aten::mm", "pid": 7, "tid": 7, "ts": 1, "dur": 1}]})J");
  expectBadInput(
      runBubblescope({"analyze", sharedData("kineto/hta-ws128-sampled-rank0.json.gz").string(),
                      (dir / "single.json").string()}),
      "single.json: says no rank, while hta-ws128-sampled-rank0.json.gz claims rank 0");
}

TEST(ImportCli, AnEmptyDirectoryIsExitTwo) {
  TempDir dir;
  std::filesystem::create_directory(dir / "in");
  expectBadInput(
      runBubblescope({"import", "kineto", (dir / "in").string(), "-o", (dir / "run").string()}),
      "in: an empty directory, so no traces to read");
}

TEST(ImportCli, TheWrongImporterPointsToTheRightOne) {
  SKIP_WITHOUT_SHARED_DATA();
  TempDir dir;
  expectBadInput(
      runBubblescope({"import", "kineto", sharedData("nsys/nsys-ai-h100-2gpu-fsdp.sqlite").string(),
                      "-o", (dir / "run").string()}),
      "use 'bubblescope import nsys'");
}

TEST(ImportCli, AnOutputDirectoryInUseIsRefused) {
  SKIP_WITHOUT_SHARED_DATA();
  TempDir dir;
  std::filesystem::create_directory(dir / "run");
  writeFile(dir / "run" / "keep.txt", "x");
  expectBadInput(runBubblescope({"import", "kineto",
                                 sharedData("kineto/hta-ws128-sampled-rank0.json.gz").string(),
                                 "-o", (dir / "run").string()}),
                 "exists and is not empty");
}

// A DDP trace has no pipeline ops: it gets its utilization (issue 16), and the report still says
// how to label a pipeline.
TEST(ImportCli, AnalyzeGivesAnImportedFileWithNoPipelineOpsItsUtilization) {
  SKIP_WITHOUT_SHARED_DATA();
  const auto r =
      runBubblescope({"analyze", sharedData("kineto/hta-ddp2-rank0-nccl.json.gz").string()});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("hta-ddp2-rank0-nccl.json.gz"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no pipeline: utilization only"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("annotate each op"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace bubblescope
