// A replica's analysis as bytes and back (analyze under MPI hands it to the process that writes
// the reports): the reports of the decoded result are the original's, in summary and with every
// gap, with and without memory samples; bytes cut short throw, never crash.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "analyzer/analyze.h"
#include "analyzer/replicas/listed_replicas.h"
#include "analyzer/report/report.h"
#include "analyzer/result/pipeline_result_codec.h"
#include "tests/analyzer/report/report_fixtures.h"

namespace bubblescope::analysis {
namespace {

std::string report(const AnalysisResult& r, const char* key, bool detail) {
  std::ostringstream out;
  writeReport(r, *findReportFormat(key), out, {false, detail});
  return out.str();
}

std::string bytesOf(const PipelineResult& p) {
  std::string bytes;
  traces::ByteWriter w(bytes);
  encodePipelineResult(p, w);
  return bytes;
}

// Every pipeline of `r` through bytes.
AnalysisResult roundTripped(AnalysisResult r) {
  for (PipelineResult& p : r.pipelines) {
    const std::string bytes = bytesOf(p);
    traces::ByteReader in(bytes);
    p = decodePipelineResult(in);
    EXPECT_TRUE(in.done());
  }
  return r;
}

testing::SyntheticJob jobWithMemoryAndAStall() {
  testing::SyntheticJob job = testing::oneF1BJob(4, 8, 2, 1.4);
  job.activationBytes = 64 << 20;
  job.weightBytes = 1 << 30;
  job.stall[{1, 1, 3, engine::OpKind::F}] = 4'000'000;
  job.hostBusy = true;
  return job;
}

// The job's run, its devices' capacity known where it records memory (so that gaps have free
// memory).
traces::Run runOf(const testing::SyntheticJob& job) {
  traces::Run run = testing::synthesize(job);
  if (job.activationBytes == 0) return run;
  for (traces::RankTrace& t : run.ranks) {
    t.devices.push_back({0, t.strings.intern("GPU"), "", uint64_t{80} << 30});
  }
  return run;
}

TEST(PipelineResultCodec, TheDecodedResultWritesTheSameReports) {
  for (const testing::SyntheticJob& job : {testing::oneF1BJob(3, 6, 1), jobWithMemoryAndAStall()}) {
    for (bool everyGap : {true, false}) {
      AnalyzeOptions options;
      options.everyGap = everyGap;
      const AnalysisResult r = analyzeRun(runOf(job), options);
      ASSERT_FALSE(r.pipelines.empty());
      ASSERT_FALSE(r.pipelines[0].gaps.empty());
      const AnalysisResult back = roundTripped(r);
      SCOPED_TRACE("every gap " + std::to_string(everyGap));
      EXPECT_EQ(report(back, "json", true), report(r, "json", true));
      EXPECT_EQ(report(back, "json", false), report(r, "json", false));
      EXPECT_EQ(report(back, "text", true), report(r, "text", true));
      EXPECT_EQ(report(back, "md", false), report(r, "md", false));
    }
  }
}

TEST(PipelineResultCodec, ASummarisedPipelineStaysOne) {
  AnalyzeOptions options;
  options.everyGap = false;
  AnalysisResult r = analyzeRun(runOf(testing::oneF1BJob(3, 6, 1)), options);
  ASSERT_FALSE(r.pipelines.empty());
  summarisePipeline(r.pipelines[0]);
  const AnalysisResult back = roundTripped(r);
  EXPECT_TRUE(back.pipelines[0].summarised);
  EXPECT_EQ(report(back, "json", false), report(r, "json", false));
  EXPECT_EQ(report(back, "text", false), report(r, "text", false));
}

TEST(PipelineResultCodec, BytesCutShortThrow) {
  AnalyzeOptions options;
  options.everyGap = false;
  const AnalysisResult r = analyzeRun(runOf(jobWithMemoryAndAStall()), options);
  const std::string bytes = bytesOf(r.pipelines.at(0));
  // Every cut of the first 4 KiB, then every 97th byte: each runs out inside some field.
  for (size_t cut = 0; cut < bytes.size(); cut += cut < 4096 ? 1 : 97) {
    traces::ByteReader in(std::string_view(bytes).substr(0, cut));
    EXPECT_THROW(decodePipelineResult(in), std::runtime_error) << cut;
  }
}

}  // namespace
}  // namespace bubblescope::analysis
