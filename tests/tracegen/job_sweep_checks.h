#pragma once
// What a sweep of jobs of several replicas asserts of every placement, on any stack: the job's
// culprit sentence and the stage and replica it names; S against the truth's; the job's model and
// every pipeline's reproduce the job; every gap of every pipeline keeps the gap invariants.
#include <gtest/gtest.h>

#include <string>

#include "analyzer/check/report_figures.h"
#include "analyzer/result/result.h"
#include "tests/analyzer/idle/gap_invariants.h"

namespace bubblescope::tracegen {

// The job's culprit, as a placement expects it: how its sentence begins, and the stage and
// replica it names (-1: none).
struct ExpectedCulprit {
  std::string culprit;
  int stage = -1, dp = -1;
};

inline void expectJobCulprit(const analysis::JobResult& jr, const ExpectedCulprit& want,
                             const std::string& drawn) {
  EXPECT_EQ(jr.culprit.rfind(want.culprit, 0), 0u)
      << drawn << "\nculprit: " << jr.culprit << "\nwant:    " << want.culprit << "...";
  EXPECT_EQ(jr.culpritStage, want.stage) << drawn << "\n" << jr.culprit;
  EXPECT_EQ(jr.culpritDp, want.dp) << drawn << "\n" << jr.culprit;
}

// S within `tolerance` (relative) of the truth's, whose step times are given for the message.
inline void expectJobSlowdown(const analysis::JobResult& jr, double truth, double truthMeasured,
                              double truthIdeal, double tolerance, const std::string& drawn) {
  EXPECT_NEAR(jr.slowdown, truth, tolerance * truth)
      << drawn << "\nmeasured " << jr.stepTimeMeasured << " ideal " << jr.stepTimeIdeal
      << "; truth " << truthMeasured << " / " << truthIdeal;
}

inline void expectModelsReproduceAndGapsHold(const analysis::AnalysisResult& result,
                                             const std::string& drawn) {
  const analysis::JobResult& jr = result.job;
  EXPECT_TRUE(jr.model.reproduces)
      << drawn << "\n"
      << analysis::modelCheckSentence(jr.model) << "; " << jr.model.largest;
  for (const analysis::PipelineResult& pl : result.pipelines) {
    const std::string which = drawn + "\npipeline " + std::to_string(pl.dpRank);
    EXPECT_TRUE(pl.model.reproduces)
        << which << ": " << analysis::modelCheckSentence(pl.model) << "; " << pl.model.largest;
    testing::expectGapInvariants(pl, which);
  }
}

}  // namespace bubblescope::tracegen
