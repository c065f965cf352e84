#include "tests/tracegen/sweep_check.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analyzer/report/figures.h"
#include "tests/analyzer/idle/gap_invariants.h"
#include "tests/tracegen/execution.h"
#include "tests/tracegen/truth.h"

namespace bubblescope::tracegen {
namespace {

using analysis::IdleClass;

std::string ms(TimeNs t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f ms", static_cast<double>(t) / 1e6);
  return buf;
}

std::string stages(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : " or ") + std::to_string(x);
  return "stage " + s;
}

bool within(double got, double want) {
  return std::abs(got - want) <= 0.02 * want;
}

// The shared invariants (gap_invariants.h), their failures taken as misses instead of reported.
std::vector<std::string> invariantFailures(const analysis::PipelineResult& pl) {
  ::testing::TestPartResultArray failures;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
    testing::expectGapInvariants(pl);
  }
  std::vector<std::string> out;
  for (int i = 0; i < failures.size(); ++i) out.push_back(failures.GetTestPartResult(i).message());
  return out;
}

}  // namespace

double faultCost(const Placement& p, const Truth& truth) {
  return truth.measuredStep / truthOf(execute(sweepBase(p.slot.job))).measuredStep;
}

std::vector<Miss> sweepMisses(const StackRun& run, const Placement& p) {
  std::vector<Miss> misses;
  if (run.result.pipelines.size() != 1 ||
      run.result.pipelines[0].stages.size() != run.truth.stages.size()) {
    misses.push_back({"pipeline", "not the job's one pipeline of " +
                                      std::to_string(run.truth.stages.size()) + " stages"});
    return misses;
  }
  const analysis::PipelineResult& pl = run.result.pipelines[0];
  const Truth& truth = run.truth;
  for (size_t s = 0; s < pl.stages.size(); ++s) {
    const TimeNs got = pl.stages[s].total.idle, want = truth.stages[s].idle;
    if (!within(static_cast<double>(got), static_cast<double>(want))) {
      misses.push_back(
          {"idle", "stage " + std::to_string(s) + ": idle " + ms(got) + ", truth " + ms(want)});
    }
  }
  if (!within(pl.slowdown, truth.slowdown)) {
    char line[80];
    std::snprintf(line, sizeof line, "S %.4f, truth %.4f", pl.slowdown, truth.slowdown);
    misses.push_back({"slowdown", line});
  }
  if (!pl.model.reproduces) {
    misses.push_back({"model", analysis::modelCheckSentence(pl.model) + "; " + pl.model.largest});
  }
  for (std::string& f : invariantFailures(pl)) misses.push_back({"invariants", std::move(f)});
  if (!p.cls) {
    // No fault: no culprit, and anything avoidable is noise (expect_found.h's bound).
    if (pl.culprit.rfind("none: ", 0) != 0) {
      misses.push_back({"culprit", "\"" + pl.culprit + "\", want none"});
    }
    if (analysis::avoidableIdle(pl.total) >= pl.total.span / 100) {
      misses.push_back({"dominant", "avoidable idle " + ms(analysis::avoidableIdle(pl.total)) +
                                        " of a span of " + ms(pl.total.span)});
    }
    return misses;
  }
  // A fault-free job's own excess over the ideal is measured against the ideal.
  const double shows = p.slot.kind == FaultKind::None ? truth.slowdown : faultCost(p, truth);
  if (shows < kFaultShows) return misses;

  const char* want = analysis::idleClassName(*p.cls);
  const int dominant = analysis::largestAvoidableClass(pl.total);
  if (dominant < 0 || analysis::idleClassAt(dominant) != *p.cls) {
    std::string split;
    for (int c = 0; c < analysis::kIdleClasses; ++c) {
      if (analysis::isScheduleOwn(analysis::idleClassAt(c)) || pl.total.idleByClass[c] == 0) {
        continue;
      }
      split += std::string(split.empty() ? "" : ", ") +
               analysis::idleClassName(analysis::idleClassAt(c)) + " " +
               ms(pl.total.idleByClass[c]);
    }
    misses.push_back(
        {"dominant",
         std::string("got ") +
             (dominant < 0 ? "none" : analysis::idleClassName(analysis::idleClassAt(dominant))) +
             ", want " + want + " (avoidable idle: " + split + ")"});
  }
  const auto named = [&](int stage) {
    return std::find(p.culpritStages.begin(), p.culpritStages.end(), stage) !=
           p.culpritStages.end();
  };
  if (!named(pl.culpritStage) || pl.culprit.find(want) == std::string::npos) {
    misses.push_back({"culprit", "\"" + pl.culprit + "\" (stage " +
                                     std::to_string(pl.culpritStage) + "), want " + want + " on " +
                                     stages(p.culpritStages)});
  }
  if (pl.topGaps.empty()) {
    misses.push_back({"blame", "no gap listed"});
  } else {
    const analysis::Gap& top = pl.gaps[pl.topGaps.front()];
    if (!named(top.blame.stage) || top.blame.cause != *p.cls) {
      misses.push_back({"blame", "largest gap, stage " + std::to_string(top.stage) + " step " +
                                     std::to_string(top.step) + ": \"" + top.blame.text +
                                     "\" blames stage " + std::to_string(top.blame.stage) +
                                     " for " + analysis::idleClassName(top.blame.cause) +
                                     ", want " + want + " on " + stages(p.culpritStages)});
    }
  }
  return misses;
}

}  // namespace bubblescope::tracegen
