// A pipeline's steps are analysed several at a time and committed in step order
// (analyzePipeline's `threads`): every report, summary and --detail, must be the same bytes as
// from the steps analysed one after the other, on every generated stack case, Megatron jobs of one
// replica (many steps: several batches) and of several, runs whose first step or a middle one the
// simulator cannot re-run or that end in an unfinished step, and the public real traces.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "analyzer/analyze.h"
#include "analyzer/report/report.h"
#include "reference_engine/schedule/schedule.h"
#include "tests/analyzer/synthetic_run.h"
#include "tests/support/temp_dir.h"
#include "tests/tracegen/cases.h"
#include "tests/tracegen/megatron_execution.h"
#include "tests/tracegen/ndtimeline_writer.h"
#include "tests/tracegen/stack_analysis.h"
#include "tests/traces/import/shared_data.h"
#include "traces/import/run_import.h"

namespace bubblescope::tracegen {
namespace {

std::string report(const analysis::AnalysisResult& r, const analysis::ReportFormat& f,
                   bool detail) {
  std::ostringstream out;
  analysis::writeReport(r, f, out, {false, detail});
  return out.str();
}

// The same run analysed on one thread and on four, with every gap kept (every format, summary
// and --detail) and as a summary (the formats that name few gaps). Returns the steps analysed.
size_t expectSameReports(const traces::Run& run, const std::string& what) {
  SCOPED_TRACE(what);
  size_t steps = 0;
  for (bool everyGap : {true, false}) {
    analysis::AnalyzeOptions one;
    one.utilizationWithoutPipeline = true;
    one.everyGap = everyGap;
    one.threads = 1;
    analysis::AnalyzeOptions four = one;
    four.threads = 4;
    const analysis::AnalysisResult a = analysis::analyzeRun(run, one);
    const analysis::AnalysisResult b = analysis::analyzeRun(run, four);
    EXPECT_EQ(b.warnings, a.warnings);
    for (const analysis::ReportFormat& f : analysis::reportFormats()) {
      if (!everyGap && !f.namesFewGaps) continue;
      for (bool detail : {false, true}) {
        if (detail && !everyGap) continue;
        EXPECT_EQ(report(b, f, detail), report(a, f, detail)) << f.key << " detail " << detail;
      }
    }
    for (const auto& pl : a.pipelines) steps += pl.steps.size();
  }
  return steps;
}

TEST(ParallelSteps, ReportsAreTheSameOnEveryKinetoCase) {
  size_t steps = 0;
  for (const auto& cases : {standardCases(), zbVCases(), bufferedCases()}) {
    for (const Case& c : cases) {
      testing::TempDir dir;
      analyseAs(Stack::Kineto, c.spec, dir.path());
      const auto imported = traces::import::importRun(traces::import::resolveInputs({dir.path()}));
      steps += expectSameReports(imported.run, "kineto " + c.name);
    }
  }
  EXPECT_GT(steps, 100u);
}

traces::Run megatron(int dp, int steps) {
  MegatronJob job;
  job.pp = 4, job.tp = 1, job.dp = dp, job.steps = steps;
  job.slowStage = 1, job.slowStageFactor = 1.2;
  if (dp > 1) job.slowReplica = dp - 1, job.slowReplicaFactor = 1.3;
  testing::TempDir dir;
  const auto file = dir.path() / "timeline.json";
  writeNdTimeline(executeMegatron(job), file, /*gzip=*/false, NdMetadata::First);
  return traces::import::importRun(traces::import::resolveInputs({file})).run;
}

TEST(ParallelSteps, ReportsAreTheSameOnMegatronJobsOfOneReplicaAndOfSeveral) {
  // 600 steps of 4 stages: more than one batch of steps in flight (256 at most).
  EXPECT_EQ(expectSameReports(megatron(1, 600), "megatron pp 4, 600 steps"), 2u * 600);
  EXPECT_GT(expectSameReports(megatron(3, 40), "megatron pp 4 x dp 3"), 0u);
}

// A synthetic 1F1B run of `steps` steps with stalls, whose F mb=3 on stage 2 is lost in each step
// of `lost` (the simulator cannot re-run those) and, with `cut`, whose last step ends before its
// last op on stage 0 (unfinished).
traces::Run withLostOps(int steps, const std::vector<int>& lost, bool cut) {
  testing::SyntheticJob job;
  job.schedule = engine::Schedule::oneF1B(4, 8);
  job.steps = steps;
  for (int s = 0; s < steps; s += 3) job.stall[{s % 4, s, s % 8, engine::OpKind::F}] = 400'000;
  traces::Run run = testing::synthesize(job);
  auto erase = [](traces::RankTrace& t, const std::string& name, int nth) {
    int seen = 0;
    for (size_t i = 0; i < t.ranges->size(); ++i) {
      if (t.strings.at(t.ranges->name[i]) != name || seen++ != nth) continue;
      t.ranges->forEachColumn([&](auto& column) { column.erase(column.begin() + i); });
      return;
    }
  };
  for (auto it = lost.rbegin(); it != lost.rend(); ++it) erase(run.ranks[2], "F mb=3", *it);
  if (cut) erase(run.ranks[0], "B mb=7", steps - 1);
  return run;
}

TEST(ParallelSteps, ReportsAreTheSameWhereStepsAreLeftOutOrUnfinished) {
  // The first step left out: the ideal schedule and the first finished order come from the second.
  EXPECT_EQ(expectSameReports(withLostOps(12, {0, 5}, false), "first and sixth steps lost"),
            2u * 10);
  EXPECT_EQ(expectSameReports(withLostOps(12, {7}, true), "eighth lost, last cut"), 2u * 11);
}

TEST(ParallelSteps, ReportsAreTheSameOnThePublicTraces) {
  SKIP_WITHOUT_SHARED_DATA();
  size_t steps = 0;  // the Kineto trace is one rank's, without a pipeline: its utilization
  for (const char* f :
       {"kineto/hta-ws16-rank0-sendrecv.json.gz", "ndtimeline/bytedance-st-timeline.json.gz",
        "ndtimeline/bytedance-se-timeline.json.gz"}) {
    const auto imported =
        traces::import::importRun(traces::import::resolveInputs({testing::sharedData(f)}));
    steps += expectSameReports(imported.run, f);
  }
  EXPECT_GT(steps, 0u);
}

}  // namespace
}  // namespace bubblescope::tracegen
