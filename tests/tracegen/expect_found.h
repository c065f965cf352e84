#pragma once
// The check every stack's cases share: the analysis of a generated job found what the generator
// did. Per stage idle within 2% of the truth, S within 2%, the dominant avoidable class (or, for
// a fault-free job, avoidable idle under 1% of the span) and the culprit of the largest gap.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "analyzer/report/figures.h"
#include "tests/analyzer/idle/gap_invariants.h"
#include "tests/tracegen/cases.h"
#include "tests/tracegen/stack_analysis.h"

namespace bubblescope::tracegen {

// What was found beside the truth, for failure messages.
inline std::string describe(const StackRun& run) {
  const analysis::PipelineResult& pl = run.result.pipelines[0];
  const Truth& truth = run.truth;
  std::string s;
  char line[200];
  for (size_t i = 0; i < pl.stages.size() && i < truth.stages.size(); ++i) {
    const auto& g = pl.stages[i].total;
    std::snprintf(line, sizeof line,
                  "stage %zu: idle %.3f ms (truth %.3f), comm %.3f (truth %.3f)\n", i, g.idle / 1e6,
                  truth.stages[i].idle / 1e6, g.exposedComm / 1e6, truth.stages[i].comm / 1e6);
    s += line;
  }
  std::snprintf(line, sizeof line, "S %.4f (truth %.4f)\n", pl.slowdown, truth.slowdown);
  s += line;
  for (int i : pl.topGaps) s += "gap: " + pl.gaps[i].blame.text + "\n";
  for (const std::string& n : run.importNotes) s += "import: " + n + "\n";
  return s;
}

inline void expectFound(const StackRun& run, const Case& c) {
  ASSERT_EQ(run.result.pipelines.size(), 1u);
  const auto& pl = run.result.pipelines[0];
  const std::string what = describe(run);
  ASSERT_EQ(pl.stages.size(), run.truth.stages.size());
  double worst = 0;  // the largest idle error of any stage, % of its true idle
  for (size_t s = 0; s < pl.stages.size(); ++s) {
    const TimeNs want = run.truth.stages[s].idle;
    EXPECT_NEAR(pl.stages[s].total.idle, want, 0.02 * want) << "stage " << s << "\n" << what;
    if (want > 0) {
      worst =
          std::max(worst, 100.0 * std::abs(double(pl.stages[s].total.idle - want)) / double(want));
    }
  }
  // The figures behind the closing notes (`--gtest_output=json` keeps them).
  char figure[64];
  std::snprintf(figure, sizeof figure, "%.4f", worst);
  ::testing::Test::RecordProperty("worst_stage_idle_error_pct", figure);
  std::snprintf(figure, sizeof figure, "%.4f / %.4f", pl.slowdown, run.truth.slowdown);
  ::testing::Test::RecordProperty("slowdown_found_truth", figure);
  EXPECT_NEAR(pl.slowdown, run.truth.slowdown, 0.02 * run.truth.slowdown) << what;
  // The model reproduces the job it measured (result/model_check.h).
  EXPECT_TRUE(pl.model.reproduces) << analysis::modelCheckSentence(pl.model) << "; "
                                   << pl.model.largest << "\n"
                                   << what;
  // One label per gap, its largest piece, and its sentence names it first: on every gap.
  testing::expectGapInvariants(pl, what);
  const int dominant = analysis::largestAvoidableClass(pl.total);
  // Every pipeline names its culprit (or none), as the job does.
  if (!c.dominant) {
    EXPECT_EQ(pl.culprit.rfind("none: ", 0), 0u) << pl.culprit << "\n" << what;
  } else if (*c.dominant == analysis::IdleClass::Imbalance && c.culpritStage >= 0) {
    EXPECT_EQ(pl.culpritStage, c.culpritStage) << pl.culprit << "\n" << what;
  } else if (*c.dominant != analysis::IdleClass::Imbalance &&
             *c.dominant != analysis::IdleClass::Jitter) {
    EXPECT_NE(pl.culprit.find(analysis::idleClassName(*c.dominant)), std::string::npos)
        << pl.culprit << "\n" << what;
  }
  if (!c.dominant) {
    // Anything avoidable left is noise: under 1% of the span.
    const TimeNs avoidable = analysis::avoidableIdle(pl.total);
    EXPECT_LT(avoidable, pl.total.span / 100) << what;
    return;
  }
  ASSERT_GE(dominant, 0) << what;
  EXPECT_EQ(analysis::idleClassAt(dominant), *c.dominant)
      << "got " << analysis::idleClassName(analysis::idleClassAt(dominant)) << "\n"
      << what;
  if (pl.topGaps.empty()) return;
  const analysis::Gap& top = pl.gaps[pl.topGaps.front()];
  if (c.culpritStage >= 0) {
    EXPECT_EQ(top.blame.stage, c.culpritStage) << what;
  }
  if (!c.culpritTexts.empty()) {
    const bool named = std::any_of(
        c.culpritTexts.begin(), c.culpritTexts.end(),
        [&](const std::string& t) { return top.blame.text.find(t) != std::string::npos; });
    EXPECT_TRUE(named) << what;
  }
}

// The unlabelled run's answer is the labelled run's: per stage the same rank, compute and idle
// of each class within 2% of the span; the largest gap on the same stage, blamed on the same
// stage for the same cause; and, where `sameDominant`, the same largest avoidable class. (Each
// test holds idle and S to its own bound.)
inline void expectTheLabelledAnswer(const analysis::PipelineResult& got,
                                    const analysis::PipelineResult& want, bool sameDominant) {
  testing::expectGapInvariants(got, "(unlabelled)");
  testing::expectGapInvariants(want, "(labelled)");
  ASSERT_EQ(got.stages.size(), want.stages.size());
  for (size_t s = 0; s < got.stages.size(); ++s) {
    const auto& g = got.stages[s].total;
    const auto& w = want.stages[s].total;
    EXPECT_EQ(got.stages[s].rank, want.stages[s].rank);
    EXPECT_NEAR(g.compute, w.compute, 0.02 * w.span) << "stage " << s;
    for (int k = 0; k < analysis::kIdleClasses; ++k) {
      EXPECT_NEAR(g.idleByClass[k], w.idleByClass[k], 0.02 * w.span)
          << "stage " << s << " class " << analysis::idleClassName(analysis::idleClassAt(k));
    }
  }
  if (sameDominant) {
    EXPECT_EQ(analysis::largestAvoidableClass(got.total),
              analysis::largestAvoidableClass(want.total));
  }
  ASSERT_EQ(got.topGaps.empty(), want.topGaps.empty());
  // A largest gap of a few microseconds (a fault-free job's) is scheduling noise: its class
  // (host or other stall, by which host ranges the labels leave) says nothing to compare.
  constexpr TimeNs kNoise = 100'000;
  if (!want.topGaps.empty() && analysis::avoidableIdle(want.gaps[want.topGaps.front()]) >= kNoise) {
    const auto& gw = want.gaps[want.topGaps.front()];
    const auto& gg = got.gaps[got.topGaps.front()];
    EXPECT_EQ(gg.stage, gw.stage);
    EXPECT_EQ(gg.blame.stage, gw.blame.stage) << gg.blame.text << "\nlabelled: " << gw.blame.text;
    EXPECT_EQ(gg.blame.cause, gw.blame.cause) << gg.blame.text << "\nlabelled: " << gw.blame.text;
  }
}

}  // namespace bubblescope::tracegen
