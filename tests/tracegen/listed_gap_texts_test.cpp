// A summary report keeps the blame sentences of only the gaps it prints (AnalyzeOptions::
// everyGapText false, GapTexts::Listed): the top gaps and each root cause's first own gap, each
// written again by classifying its step once more. The summary reports (text, JSON, Markdown,
// JUnit) must be the same bytes as from an analysis that kept every sentence, and the sentences
// it kept the same words, on every generated stack case, a Megatron job of several replicas and
// the public real traces.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

#include "analyzer/analyze.h"
#include "analyzer/report/report.h"
#include "tests/support/temp_dir.h"
#include "tests/tracegen/cases.h"
#include "tests/tracegen/megatron_execution.h"
#include "tests/tracegen/ndtimeline_writer.h"
#include "tests/tracegen/stack_analysis.h"
#include "tests/traces/import/shared_data.h"
#include "traces/import/run_import.h"

namespace bubblescope::tracegen {
namespace {

struct Seen {
  size_t listedWithText = 0;  // gaps whose sentence was written again
  size_t dropped = 0;         // gaps whose sentence was not kept
};

std::set<int> listedGaps(const analysis::PipelineResult& pl) {
  std::set<int> listed(pl.topGaps.begin(), pl.topGaps.end());
  for (const analysis::RootCause& rc : pl.rootCauses) {
    if (!rc.own.empty()) listed.insert(rc.own.front());
  }
  return listed;
}

std::string summary(const analysis::AnalysisResult& r, const analysis::ReportFormat& f) {
  std::ostringstream out;
  analysis::writeReport(r, f, out, {false, false});
  return out.str();
}

void expectSameSummaries(const traces::Run& run, const std::string& what, Seen& seen) {
  SCOPED_TRACE(what);
  analysis::AnalyzeOptions every;
  every.utilizationWithoutPipeline = true;
  analysis::AnalyzeOptions listed = every;
  listed.everyGapText = false;
  const analysis::AnalysisResult all = analysis::analyzeRun(run, every);
  const analysis::AnalysisResult few = analysis::analyzeRun(run, listed);
  for (const analysis::ReportFormat& f : analysis::reportFormats()) {
    if (f.listedGapTexts) {
      EXPECT_EQ(summary(few, f), summary(all, f)) << f.key;
    }
  }
  ASSERT_EQ(few.pipelines.size(), all.pipelines.size());
  for (size_t p = 0; p < all.pipelines.size(); ++p) {
    const analysis::PipelineResult &a = all.pipelines[p], &b = few.pipelines[p];
    ASSERT_EQ(b.gaps.size(), a.gaps.size());
    const std::set<int> printed = listedGaps(a);
    for (size_t g = 0; g < a.gaps.size(); ++g) {
      EXPECT_EQ(b.gaps[g].idle, a.gaps[g].idle) << "gap " << g;
      EXPECT_EQ(b.gaps[g].blame.cause, a.gaps[g].blame.cause) << "gap " << g;
      if (printed.contains(static_cast<int>(g))) {
        EXPECT_EQ(b.gaps[g].blame.text, a.gaps[g].blame.text) << "gap " << g;
        seen.listedWithText += !b.gaps[g].blame.text.empty();
      } else {
        EXPECT_EQ(b.gaps[g].blame.text, "") << "gap " << g;
        seen.dropped += !a.gaps[g].blame.text.empty();
      }
    }
  }
}

TEST(ListedGapTexts, SummariesAreTheSameOnEveryKinetoAndNsysCase) {
  Seen seen;
  for (Stack stack : {Stack::Kineto, Stack::Nsys}) {
    for (const auto& cases : {standardCases(), zbVCases(), bufferedCases()}) {
      for (const Case& c : cases) {
        testing::TempDir dir;
        analyseAs(stack, c.spec, dir.path());
        const auto imported =
            traces::import::importRun(traces::import::resolveInputs({dir.path()}));
        expectSameSummaries(imported.run, (stack == Stack::Kineto ? "kineto " : "nsys ") + c.name,
                            seen);
      }
    }
  }
  // Not vacuous: sentences were written again, and others left out.
  EXPECT_GT(seen.listedWithText, 20u);
  EXPECT_GT(seen.dropped, 200u);
}

TEST(ListedGapTexts, SummariesAreTheSameOnAMegatronJobOfSeveralReplicas) {
  MegatronJob job;
  job.pp = 4, job.tp = 1, job.dp = 2;
  job.slowReplica = 1, job.slowReplicaFactor = 1.3;
  testing::TempDir dir;
  const auto file = dir.path() / "timeline.json";
  writeNdTimeline(executeMegatron(job), file, /*gzip=*/false, NdMetadata::First);
  const auto imported = traces::import::importRun(traces::import::resolveInputs({file}));
  Seen seen;
  expectSameSummaries(imported.run, "megatron pp 4 x dp 2", seen);
  EXPECT_GT(seen.listedWithText, 0u);
  EXPECT_GT(seen.dropped, 0u);
}

TEST(ListedGapTexts, SummariesAreTheSameOnThePublicTraces) {
  SKIP_WITHOUT_SHARED_DATA();
  Seen seen;
  for (const char* f :
       {"kineto/hta-ws16-rank0-sendrecv.json.gz", "nsys/nsys-ai-2gpu-mfu-before.sqlite",
        "ndtimeline/bytedance-st-timeline.json.gz", "ndtimeline/bytedance-se-timeline.json.gz"}) {
    const auto imported =
        traces::import::importRun(traces::import::resolveInputs({testing::sharedData(f)}));
    expectSameSummaries(imported.run, f, seen);
  }
  EXPECT_GT(seen.listedWithText, 0u);
  EXPECT_GT(seen.dropped, 0u);
}

}  // namespace
}  // namespace bubblescope::tracegen
