// `bubblescope analyze` gives its run up to the analysis (analyzeRun(Run&&)). Once a rank is
// recognised, its launches, copies, kernels and names go (the memory look reads the compute
// kernels its ops carry); once the comms are matched, its NCCL calls; only its device memory
// samples stay for the gaps. Whatever went, the analysis says exactly what it says of a run it
// keeps: a Kineto job (NCCL kernels waiting for their peers, a slow link, clock skew), with and
// without the allocator's samples.
#include <gtest/gtest.h>

#include <string>

#include "analyzer/analyze.h"
#include "analyzer/report/json_report.h"
#include "tests/support/temp_dir.h"
#include "tests/tracegen/execution.h"
#include "tests/tracegen/kineto_stack.h"
#include "traces/import/run_import.h"

namespace bubblescope::tracegen {
namespace {

traces::Run kinetoRun(const JobSpec& s) {
  const JobTimeline job = execute(s);
  testing::TempDir dir;
  for (int r = 0; r < s.p; ++r) {
    KinetoOptions o;
    o.base = s.start - 2'000'000'000;
    testing::writeFile(dir.path() / ("rank" + std::to_string(r) + ".pt.trace.json"),
                       kinetoRankJson(job, r, o));
  }
  return traces::import::importRun(traces::import::resolveInputs({dir.path()})).run;
}

void expectTheSameAnswer(bool recordMemory) {
  JobSpec s;
  s.p = 4;
  s.m = 8;
  s.steps = 3;
  s.clockSkew = {0, 430'000, -270'000, 910'000};
  s.slowLinks.push_back({1, 2, 400'000});
  s.recordMemory = recordMemory;
  const traces::Run kept = kinetoRun(s);
  traces::Run given = kept;
  const analysis::AnalysisResult fromKept = analysis::analyzeRun(kept);
  const analysis::AnalysisResult fromGiven = analysis::analyzeRun(std::move(given));
  ASSERT_FALSE(fromKept.pipelines.empty());
  EXPECT_EQ(analysis::jsonReportText(fromGiven, -1, analysis::JsonDetail::Full),
            analysis::jsonReportText(fromKept, -1, analysis::JsonDetail::Full));
  // The overload leaves the run in place (emptied tables and all), so what went can be seen.
  for (size_t r = 0; r < given.ranks.size(); ++r) {
    const traces::RankTrace& t = given.ranks[r];
    EXPECT_GT(kept.ranks[r].apiCalls->size(), 0u);
    EXPECT_GT(kept.ranks[r].ncclCalls->size(), 0u);
    EXPECT_EQ(t.apiCalls->size(), 0u) << "rank " << r;
    EXPECT_EQ(t.ncclCalls->size(), 0u) << "rank " << r;
    EXPECT_EQ(t.ranges->size(), 0u) << "rank " << r;
    EXPECT_EQ(t.memory->size(), kept.ranks[r].memory->size()) << "rank " << r;
    EXPECT_EQ(t.memory->size() > 0, recordMemory) << "rank " << r;
    // The idle device is found from the compute kernels recognised with the ops.
    EXPECT_GT(kept.ranks[r].kernels->size(), 0u);
    EXPECT_EQ(t.kernels->size(), 0u) << "rank " << r;
    EXPECT_EQ(t.strings.size(), 1u) << "rank " << r;
  }
}

TEST(GivenUpRun, AKinetoRunWithMemorySamplesSaysWhatAKeptOneSays) {
  expectTheSameAnswer(true);
}

TEST(GivenUpRun, AKinetoRunWithoutMemorySamplesSaysWhatAKeptOneSays) {
  expectTheSameAnswer(false);
}

}  // namespace
}  // namespace bubblescope::tracegen
