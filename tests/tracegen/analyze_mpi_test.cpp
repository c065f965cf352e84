// `bubblescope analyze` under mpirun (issue 31): the processes share out the run's files, each
// recognises its own, MPI rank 0 analyses the job and writes the reports, which must be the bytes
// the program alone writes (JSON with every detail, the text summary) on generated Kineto and nsys
// runs (of one pipeline, and of several DP replicas with a fault) and a Megatron job of PP x TP x
// DP rank files with a fault on one replica or one stage. A file one process cannot read is one
// sentence and exit 2 from rank 0; a killed process ends mpirun within seconds; with --local two
// "nodes" (working directories) each read their own half. Skipped where MPI was not built or mpirun
// is missing.
#include <signal.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/local_mpirun.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "tests/tracegen/cases.h"
#include "tests/tracegen/megatron_execution.h"
#include "tests/tracegen/ndtimeline_writer.h"
#include "tests/tracegen/stack_analysis.h"
#include "traces/import/run_import.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::tracegen {
namespace {

namespace fs = std::filesystem;
using testing::ProcessOptions;
using testing::ProcessResult;

bool haveMpi() {
  return std::string(MPIRUN).size() > 0 && fs::exists(MPIRUN);
}

#define SKIP_WITHOUT_MPI() \
  if (!haveMpi()) GTEST_SKIP() << "MPI not built or mpirun missing: analyze under MPI untested"

ProcessOptions options(const fs::path& cwd) {
  ProcessOptions o;
  o.unsetEnv = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS", "BUBBLESCOPE_MPI"};
  o.workingDir = cwd.string();
  o.timeout = std::chrono::seconds(120);
  return o;
}

std::vector<std::string> mpirun() {
  return testing::localMpirun(MPIRUN);
}

// `mpiArgs`: mpirun's own, before the program (-x VAR=VALUE).
ProcessResult analyzeUnder(int n, const fs::path& cwd, const std::vector<std::string>& args,
                           const std::vector<std::string>& mpiArgs = {}) {
  std::vector<std::string> argv = mpirun();
  argv.insert(argv.end(), mpiArgs.begin(), mpiArgs.end());
  argv.insert(argv.end(), {"-n", std::to_string(n), BUBBLESCOPE_BIN, "analyze"});
  argv.insert(argv.end(), args.begin(), args.end());
  return testing::runProcess(argv, options(cwd));
}

ProcessResult analyzeAlone(const fs::path& cwd, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {BUBBLESCOPE_BIN, "analyze"};
  argv.insert(argv.end(), args.begin(), args.end());
  return testing::runProcess(argv, options(cwd));
}

std::string read(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The JSON with every detail and the text summary, alone and under `n` processes: the same bytes.
void expectSameReports(const fs::path& cwd, const std::string& run, int n,
                       const std::vector<std::string>& mpiArgs = {}) {
  SCOPED_TRACE(run + " under " + std::to_string(n) + " processes");
  const ProcessResult alone = analyzeAlone(cwd, {run, "--detail", "-o", "alone.json"});
  ASSERT_EQ(alone.exitCode, 0) << alone.err;
  const ProcessResult mpi = analyzeUnder(n, cwd, {run, "--detail", "-o", "mpi.json"}, mpiArgs);
  ASSERT_EQ(mpi.exitCode, 0) << mpi.err;
  const std::string json = read(cwd / "alone.json");
  EXPECT_GT(json.size(), 1000u);
  EXPECT_EQ(read(cwd / "mpi.json"), json);
  const ProcessResult text = analyzeAlone(cwd, {run});
  const ProcessResult mpiText = analyzeUnder(n, cwd, {run}, mpiArgs);
  ASSERT_EQ(mpiText.exitCode, 0) << mpiText.err;
  EXPECT_NE(text.out.find("bubblescope analysis of"), std::string::npos) << text.out;
  EXPECT_EQ(mpiText.out, text.out);
  EXPECT_EQ(mpiText.err, text.err);
}

// A Megatron job as the per-rank traces `bubblescope import` writes, in `dir`.
void writeMegatronRun(const MegatronJob& job, const fs::path& dir) {
  testing::TempDir scratch;
  const fs::path timeline = scratch / "timeline.json";
  writeNdTimeline(executeMegatron(job), timeline);
  const traces::Run run = traces::import::importRun(traces::import::resolveInputs({timeline})).run;
  fs::create_directories(dir);
  for (size_t i = 0; i < run.ranks.size(); ++i) {
    char name[48];
    std::snprintf(name, sizeof name, "rank-%05zu.sqlite", i);
    traces::writeRankTrace(run.ranks[i], dir / name);
  }
}

TEST(AnalyzeMpi, KinetoAndNsysRunsGiveTheReportsOfOneProcess) {
  SKIP_WITHOUT_MPI();
  const std::vector<Case> cases = standardCases();
  for (Stack stack : {Stack::Kineto, Stack::Nsys}) {
    for (size_t c = 0; c < cases.size(); c += 3) {
      SCOPED_TRACE(cases[c].name);
      testing::TempDir dir;
      fs::create_directories(dir / "run");
      analyseAs(stack, cases[c].spec, dir / "run");
      expectSameReports(dir.path(), "run", 2 + static_cast<int>(c % 2));
    }
  }
}

// PyTorch pipelines beside data parallelism, a rank file each (Kineto) or two ranks a host's file
// (nsys): a slow replica, then a slow stage.
TEST(AnalyzeMpi, KinetoAndNsysJobsOfSeveralReplicasWithAFaultGiveTheReportsOfOneProcess) {
  SKIP_WITHOUT_MPI();
  JobSpec slowReplica;
  slowReplica.p = 4, slowReplica.dp = 3, slowReplica.m = 6, slowReplica.jitter = 0.02;
  slowReplica.slowReplica = 2, slowReplica.slowFactor = 1.4;
  slowReplica.clockSkew = {0, 430'000, -270'000, 910'000, 120'000, -640'000, 55'000};
  JobSpec slowStage = slowReplica;
  slowStage.slowReplica.reset();
  slowStage.slowStage = 1;
  slowStage.schedule = JobSchedule::Interleaved, slowStage.m = 8;
  for (Stack stack : {Stack::Kineto, Stack::Nsys}) {
    for (const JobSpec& spec : {slowReplica, slowStage}) {
      SCOPED_TRACE(stack == Stack::Kineto ? "Kineto" : "nsys");
      testing::TempDir dir;
      fs::create_directories(dir / "run");
      analyseAs(stack, spec, dir / "run");
      expectSameReports(dir.path(), "run", spec.slowStage ? 2 : 3);
    }
  }
}

// The move to the owners in rounds of one rank each (a round's bytes smaller than any rank): the
// ranks arrive over many rounds, from every process, and the report is still one process's.
TEST(AnalyzeMpi, RanksMovedARoundEachGiveTheReportsOfOneProcess) {
  SKIP_WITHOUT_MPI();
  JobSpec spec;
  spec.p = 4, spec.dp = 3, spec.m = 6, spec.jitter = 0.02;
  spec.slowReplica = 1, spec.slowFactor = 1.3;
  testing::TempDir dir;
  fs::create_directories(dir / "run");
  analyseAs(Stack::Kineto, spec, dir / "run");
  expectSameReports(dir.path(), "run", 3, {"-x", "BUBBLESCOPE_MPI_ROUND_BYTES=1"});
}

TEST(AnalyzeMpi, AMegatronJobWithAFaultOnAReplicaOrAStageGivesTheReportsOfOneProcess) {
  SKIP_WITHOUT_MPI();
  MegatronJob slowReplica;
  slowReplica.pp = 4, slowReplica.tp = 2, slowReplica.dp = 3;
  slowReplica.slowReplica = 1, slowReplica.slowReplicaFactor = 1.3;
  MegatronJob slowStage;
  slowStage.pp = 4, slowStage.tp = 1, slowStage.dp = 2;
  slowStage.slowStage = 2, slowStage.slowStageFactor = 1.5;
  for (const MegatronJob& job : {slowReplica, slowStage}) {
    testing::TempDir dir;
    writeMegatronRun(job, dir / "run");
    for (int n : {2, 4}) expectSameReports(dir.path(), "run", n);
  }
}

TEST(AnalyzeMpi, AFileOneProcessCannotReadIsOneSentenceAndExitTwo) {
  SKIP_WITHOUT_MPI();
  MegatronJob job;
  job.pp = 2, job.tp = 1, job.dp = 2;
  testing::TempDir dir;
  writeMegatronRun(job, dir / "run");
  { std::ofstream(dir / "run" / "rank-00003.sqlite", std::ios::trunc) << "not a database"; }
  const ProcessResult alone = analyzeAlone(dir.path(), {"run"});
  ASSERT_EQ(alone.exitCode, 2);
  const auto begin = std::chrono::steady_clock::now();
  const ProcessResult mpi = analyzeUnder(3, dir.path(), {"run"});
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(30));
  EXPECT_EQ(mpi.exitCode, 2) << mpi.err;
  EXPECT_EQ(mpi.err, alone.err);
  EXPECT_EQ(std::count(mpi.err.begin(), mpi.err.end(), '\n'), 1) << mpi.err;
  EXPECT_EQ(mpi.out, "");
  // A path no process has.
  const ProcessResult missing = analyzeUnder(2, dir.path(), {"nowhere"});
  EXPECT_EQ(missing.exitCode, 2);
  EXPECT_EQ(missing.err, analyzeAlone(dir.path(), {"nowhere"}).err);
}

TEST(AnalyzeMpi, AKilledProcessEndsMpirunWithinSeconds) {
  SKIP_WITHOUT_MPI();
  MegatronJob job;  // a few seconds of loading and recognition: killed in the middle
  job.pp = 2, job.tp = 1, job.dp = 2, job.m = 4, job.steps = 12000;
  testing::TempDir dir;
  writeMegatronRun(job, dir / "run");
  const fs::path pid = dir / "victim.pid";
  std::vector<std::string> argv = mpirun();
  argv.insert(argv.end(), {"-np", "1", BUBBLESCOPE_BIN, "analyze", "run", ":", "-np", "1",
                           "/bin/sh", "-c", "echo $$ > " + pid.string() + "; exec \"$@\"", "sh",
                           BUBBLESCOPE_BIN, "analyze", "run"});
  std::thread killer([&] {
    for (int i = 0; i < 400 && !fs::exists(pid); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    ::kill(std::stoi(read(pid)), SIGKILL);
  });
  const auto begin = std::chrono::steady_clock::now();
  const ProcessResult r = testing::runProcess(argv, options(dir.path()));
  const auto took = std::chrono::steady_clock::now() - begin;
  killer.join();
  EXPECT_NE(r.exitCode, 0) << r.out << r.err;
  EXPECT_FALSE(r.timedOut);
  EXPECT_LT(took, std::chrono::seconds(30));
  EXPECT_EQ(r.out.find("bubblescope analysis of"), std::string::npos) << r.out;
}

TEST(AnalyzeMpi, WithLocalEachNodeReadsItsOwnFilesAndTheReportIsTheWholeRuns) {
  SKIP_WITHOUT_MPI();
  MegatronJob job;
  job.pp = 4, job.tp = 1, job.dp = 2;
  job.slowReplica = 0, job.slowReplicaFactor = 1.2;
  testing::TempDir dir;
  writeMegatronRun(job, dir / "whole" / "run");
  // Node a holds the even ranks' files, node b the odd ones', both at the path "run"; node c, MPI
  // rank 0, none (it has no "run" at all).
  for (const char* node : {"a", "b"}) fs::create_directories(dir / node / "run");
  fs::create_directories(dir / "c");
  int i = 0;
  for (const fs::path& f : traces::import::resolveInputs({dir / "whole" / "run"}).files) {
    fs::copy_file(f, dir / (i++ % 2 == 0 ? "a" : "b") / "run" / f.filename());
  }
  const ProcessResult alone = analyzeAlone(dir / "whole", {"run", "--detail", "-o", "alone.json"});
  ASSERT_EQ(alone.exitCode, 0) << alone.err;
  std::vector<std::string> argv = mpirun();
  for (const char* node : {"c", "a", "b"}) {
    if (argv.back() != "lo") argv.push_back(":");
    argv.insert(argv.end(),
                {"-np", "1", "--wdir", (dir / node).string(), BUBBLESCOPE_BIN, "analyze", "--local",
                 "run", "--detail", "-o", (dir / "local.json").string()});
  }
  const ProcessResult local = testing::runProcess(argv, options(dir.path()));
  ASSERT_EQ(local.exitCode, 0) << local.err;
  EXPECT_EQ(read(dir / "local.json"), read(dir / "whole" / "alone.json"));
  // Without --local, the nodes' processes see different files: one sentence, exit 2.
  argv.erase(std::remove(argv.begin(), argv.end(), "--local"), argv.end());
  const ProcessResult shared = testing::runProcess(argv, options(dir.path()));
  EXPECT_EQ(shared.exitCode, 2) << shared.err;
  EXPECT_EQ(std::count(shared.err.begin(), shared.err.end(), '\n'), 1) << shared.err;
}

TEST(AnalyzeMpi, LocalWithoutALauncherIsOneSentence) {
  testing::TempDir dir;
  const ProcessResult r = analyzeAlone(dir.path(), {"--local", "run"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_EQ(r.err,
            "bubblescope: --local goes with an MPI launcher (mpirun, srun) that starts analyze on "
            "every node\n");
}

}  // namespace
}  // namespace bubblescope::tracegen
