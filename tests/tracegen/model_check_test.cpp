// The analysis checks its own model: on a job whose labels imply dependencies it did not have (a
// labelling bug: one stage's microbatches 0 and 1 swapped), the replay of measured op costs cannot
// run the job as fast as it ran, and the report says so, naming the op, before anything else.
#include <gtest/gtest.h>

#include <sstream>

#include "analyzer/report/report.h"
#include "tests/support/temp_dir.h"
#include "tests/tracegen/stack_analysis.h"

namespace bubblescope::tracegen {
namespace {

JobSpec mislabelled() {
  JobSpec spec;
  spec.mislabelledStages = {2};  // stage 2 names microbatch 1 what ran as 0, and 0 what ran as 1
  return spec;
}

TEST(ModelCheck, FiresWhenTheLabelsImplyDependenciesTheJobDidNotHave) {
  testing::TempDir dir;
  const StackRun run = analyseAs(Stack::Kineto, mislabelled(), dir.path());
  ASSERT_EQ(run.result.pipelines.size(), 1u);
  const analysis::PipelineResult& pl = run.result.pipelines[0];
  EXPECT_FALSE(pl.model.reproduces) << analysis::modelCheckSentence(pl.model);
  EXPECT_GT(pl.model.replayed, pl.model.measured);
  EXPECT_NE(pl.model.largest.find("stage"), std::string::npos) << pl.model.largest;
  for (const analysis::WhatIf& w : pl.whatIf) EXPECT_FALSE(w.trusted) << w.scenario;
  ::testing::Test::RecordProperty("model_check",
                                  analysis::modelCheckSentence(pl.model) + "; " + pl.model.largest);

  // The text report says so right after its title; the JSON carries the check.
  std::ostringstream text;
  analysis::writeReport(run.result, analysis::reportFormat("text"), text);
  const std::string t = text.str();
  const size_t title = t.find('\n');
  EXPECT_EQ(t.find("MODEL:    the model does not reproduce the pipeline"), title + 1) << t;
  std::ostringstream json;
  analysis::writeReport(run.result, analysis::reportFormat("json"), json);
  EXPECT_NE(json.str().find("\"reproduces\": false"), std::string::npos);
}

TEST(ModelCheck, HoldsOnTheSameJobLabelledRight) {
  testing::TempDir dir;
  const StackRun run = analyseAs(Stack::Kineto, JobSpec{}, dir.path());
  ASSERT_EQ(run.result.pipelines.size(), 1u);
  const analysis::PipelineResult& pl = run.result.pipelines[0];
  EXPECT_TRUE(pl.model.reproduces)
      << analysis::modelCheckSentence(pl.model) << "; " << pl.model.largest;
  EXPECT_LE(pl.model.replayed, pl.model.measured + pl.model.measured / 50);
}

}  // namespace
}  // namespace bubblescope::tracegen
