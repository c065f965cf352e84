// `analyze` in shards (issue 31, under MPI): each process recognises some of the run's files and
// keeps of each trace only what the rest of the analysis reads; one process puts the shards
// together. Its reports must be the bytes a single process writes for the whole run (JSON with
// every detail, and the text summary), whatever files each shard took: every generated Kineto and
// nsys case, a Megatron job of PP x TP x DP ranks as per-rank bubblescope traces, the public
// traces. Shards are drawn at random; the seed is printed.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>

#include "analyzer/analyze.h"
#include "analyzer/report/report.h"
#include "analyzer/result/pipeline_result_codec.h"
#include "cli/analysis_shard.h"
#include "tests/support/temp_dir.h"
#include "tests/tracegen/cases.h"
#include "tests/tracegen/execution.h"
#include "tests/tracegen/megatron_execution.h"
#include "tests/tracegen/ndtimeline_writer.h"
#include "tests/tracegen/nsys_stack.h"
#include "tests/tracegen/stack_analysis.h"
#include "tests/traces/import/shared_data.h"
#include "traces/errors.h"
#include "traces/import/run_import.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::tracegen {
namespace {

namespace fs = std::filesystem;

// The analysis from `shards` as MPI rank 0 makes it: each added as it arrives, then the job.
analysis::AnalysisResult analyzeShards(const traces::import::Inputs& inputs,
                                       const std::vector<fs::path>& paths,
                                       const std::vector<std::string>& shards,
                                       const analysis::AnalyzeOptions& options, bool wholeRun) {
  cli::ShardAssembler assembler;
  for (const std::string& shard : shards) assembler.add(shard);
  return assembler.analyze(inputs, paths, options, wholeRun);
}

std::string report(const analysis::AnalysisResult& r, const char* key, bool detail) {
  std::ostringstream out;
  analysis::writeReport(r, *analysis::findReportFormat(key), out, {false, detail});
  return out.str();
}

// Every pipeline's result through the bytes a process would send it as.
analysis::AnalysisResult throughBytes(analysis::AnalysisResult r) {
  for (analysis::PipelineResult& p : r.pipelines) {
    std::string bytes;
    traces::ByteWriter w(bytes);
    analysis::encodePipelineResult(p, w);
    traces::ByteReader in(bytes);
    p = analysis::decodePipelineResult(in);
  }
  return r;
}

// The files of `paths` dealt to `n` shards at random (some may hold none).
std::vector<std::vector<size_t>> deal(size_t files, size_t n, std::mt19937& rng) {
  std::vector<std::vector<size_t>> out(n);
  for (size_t f = 0; f < files; ++f) out[rng() % n].push_back(f);
  return out;
}

// Analysed whole and in 1-4 random shards, in summary and with every gap: the same reports, and
// the same again with each replica's result sent as bytes. Returns the whole run's text report.
std::string expectSameAsWhole(const std::vector<fs::path>& paths, const std::string& what,
                              std::mt19937& rng) {
  SCOPED_TRACE(what);
  const traces::import::Inputs inputs = traces::import::resolveInputs(paths);
  std::string text;
  for (bool everyGap : {false, true}) {
    analysis::AnalyzeOptions options;
    options.utilizationWithoutPipeline = true;
    options.everyGap = everyGap;
    const analysis::AnalysisResult whole =
        analysis::analyzeRun(traces::import::loadAnyRun(paths), options);
    const size_t n = 1 + rng() % 4;
    std::vector<std::string> shards;
    for (const auto& files : deal(inputs.files.size(), n, rng)) {
      shards.push_back(cli::recognizeShard(inputs, files, options));
    }
    std::shuffle(shards.begin(), shards.end(), rng);
    const analysis::AnalysisResult sharded = analyzeShards(inputs, paths, shards, options, true);
    SCOPED_TRACE(std::to_string(n) + " shard(s), every gap " + std::to_string(everyGap));
    text = report(whole, "text", false);
    EXPECT_EQ(report(sharded, "text", false), text);
    const analysis::AnalysisResult sent = throughBytes(sharded);
    if (everyGap) {
      EXPECT_EQ(report(sharded, "json", true), report(whole, "json", true));
      EXPECT_EQ(report(sent, "json", true), report(whole, "json", true));
    } else {
      EXPECT_EQ(report(sharded, "json", false), report(whole, "json", false));
      EXPECT_EQ(report(sent, "json", false), report(whole, "json", false));
    }
  }
  return text;
}

std::mt19937 seeded(const char* test) {
  const unsigned seed = std::random_device{}();
  std::cout << test << ": shards drawn with seed " << seed << "\n";
  return std::mt19937(seed);
}

// A run imported in memory, written as bubblescope's per-rank traces into `dir`.
void writeAsRankFiles(const traces::Run& run, const fs::path& dir) {
  for (size_t i = 0; i < run.ranks.size(); ++i) {
    char name[48];
    std::snprintf(name, sizeof name, "rank-%05zu.sqlite", i);
    traces::writeRankTrace(run.ranks[i], dir / name);
  }
}

TEST(ShardedAnalysis, EveryKinetoAndNsysCaseGivesTheWholeRunsReports) {
  std::mt19937 rng = seeded("kineto and nsys cases");
  for (Stack stack : {Stack::Kineto, Stack::Nsys}) {
    for (const auto& cases : {standardCases(), zbVCases(), bufferedCases()}) {
      for (const Case& c : cases) {
        testing::TempDir dir;
        analyseAs(stack, c.spec, dir.path());
        expectSameAsWhole({dir.path()}, (stack == Stack::Kineto ? "kineto " : "nsys ") + c.name,
                          rng);
      }
    }
  }
}

TEST(ShardedAnalysis, NsysExportsWithoutNcclsPayloadsGiveTheWholeRunsReports) {
  // No peers: sends and receives are paired by posting order, which reads the kernels' streams.
  std::mt19937 rng = seeded("nsys without payloads");
  std::vector<Case> cases = standardCases();
  // A V's stage sends to both neighbours, each on its own stream: told apart by the streams.
  for (Case& c : zbVCases()) cases.push_back(std::move(c));
  for (const Case& c : cases) {
    for (NsysPayloads payloads : {NsysPayloads::None, NsysPayloads::Blobs}) {
      testing::TempDir dir;
      NsysOptions o;
      o.ranksPerHost = 1;
      o.payloads = payloads;
      writeNsysExports(execute(c.spec), dir.path(), o);
      const std::string text = expectSameAsWhole({dir.path()}, "nsys " + c.name, rng);
      if (payloads == NsysPayloads::None) {
        EXPECT_NE(text.find("in posting order"), std::string::npos) << c.name << "\n" << text;
      }
    }
  }
}

TEST(ShardedAnalysis, AnUnlabelledRunIsAnalysedWholeAndTheSame) {
  std::mt19937 rng = seeded("unlabelled");
  const Case c = standardCases().front();
  testing::TempDir dir;
  analyseAs(Stack::Kineto, c.spec, dir.path(), Labels::Unlabelled);
  expectSameAsWhole({dir.path()}, "kineto unlabelled " + c.name, rng);
  // Where this process cannot read every file (--local), it says so in one sentence.
  const auto inputs = traces::import::resolveInputs({dir.path()});
  std::vector<size_t> all(inputs.files.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  std::vector<std::string> shards = {cli::recognizeShard(inputs, all, {})};
  try {
    analyzeShards(inputs, {dir.path()}, shards, {}, false);
    ADD_FAILURE() << "analysed without every file";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no pipeline ops recognised"), std::string::npos)
        << e.what();
  }
}

TEST(ShardedAnalysis, AMegatronJobOfReplicasAndTpGroupsAsRankFilesGivesTheWholeRunsReports) {
  std::mt19937 rng = seeded("megatron");
  for (int tp : {1, 2}) {
    MegatronJob job;
    job.pp = 4, job.tp = tp, job.dp = 3;
    job.slowReplica = 1, job.slowReplicaFactor = 1.3;
    testing::TempDir dir;
    const auto timeline = dir.path() / "timeline.json";
    writeNdTimeline(executeMegatron(job), timeline, /*gzip=*/false, NdMetadata::First);
    const fs::path run = dir.path() / "run";
    fs::create_directories(run);
    writeAsRankFiles(traces::import::importRun(traces::import::resolveInputs({timeline})).run, run);
    expectSameAsWhole({run}, "megatron pp 4 x tp " + std::to_string(tp) + " x dp 3", rng);
    expectSameAsWhole({timeline}, "the same as one NDTimeline file", rng);
  }
}

TEST(ShardedAnalysis, ThePublicTracesGiveTheWholeRunsReports) {
  SKIP_WITHOUT_SHARED_DATA();
  std::mt19937 rng = seeded("public traces");
  for (const char* f :
       {"kineto/hta-ws16-rank0-sendrecv.json.gz", "nsys/nsys-ai-2gpu-mfu-before.sqlite",
        "ndtimeline/bytedance-st-timeline.json.gz", "ndtimeline/bytedance-se-timeline.json.gz"}) {
    expectSameAsWhole({testing::sharedData(f)}, f, rng);
  }
  // ByteDance's 128-rank job as the per-rank traces `bubblescope import` writes.
  testing::TempDir dir;
  writeAsRankFiles(traces::import::importRun(traces::import::resolveInputs({testing::sharedData(
                                                 "ndtimeline/bytedance-st-timeline.json.gz")}))
                       .run,
                   dir.path());
  expectSameAsWhole({dir.path()}, "bytedance-st as rank files", rng);
}

TEST(ShardedAnalysis, AFileAShardCannotReadIsSaidAsTheWholeRunWouldSayIt) {
  MegatronJob job;
  job.pp = 2, job.tp = 1, job.dp = 2;
  testing::TempDir dir;
  const auto timeline = dir.path() / "timeline.json";
  writeNdTimeline(executeMegatron(job), timeline);
  const fs::path run = dir.path() / "run";
  fs::create_directories(run);
  writeAsRankFiles(traces::import::importRun(traces::import::resolveInputs({timeline})).run, run);
  const auto inputs = traces::import::resolveInputs({run});
  // Damaged after the files were listed, as a file another node cannot read.
  { std::ofstream(inputs.files[2], std::ios::trunc) << "not a database"; }
  std::string whole;
  try {
    traces::import::loadAnyRun({run});
  } catch (const traces::TraceError& e) {
    whole = e.what();
  }
  ASSERT_FALSE(whole.empty());
  std::vector<std::string> shards = {cli::recognizeShard(inputs, {0, 1}, {}),
                                     cli::recognizeShard(inputs, {2, 3}, {})};
  try {
    analyzeShards(inputs, {run}, shards, {}, true);
    ADD_FAILURE() << "a damaged file was analysed";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), whole);
  }
}

}  // namespace
}  // namespace bubblescope::tracegen
