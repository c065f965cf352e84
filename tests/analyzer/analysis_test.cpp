// The analysis on synthetic traces whose timing is known exactly: the idle classes, the blame,
// the slowdowns and the what-if table must come out as the definitions (analysis.md) say.
#include <gtest/gtest.h>

#include <cmath>

#include "analyzer/analyze.h"
#include "analyzer/result/errors.h"
#include "reference_engine/sim/simulate.h"
#include "tests/analyzer/synthetic_run.h"
#include "traces/model/sort.h"

namespace bubblescope::analysis {
namespace {

using engine::Schedule;
using testing::synthesize;
using testing::SyntheticJob;

TimeNs cls(const Split& s, IdleClass c) {
  return s.idleByClass[static_cast<int>(c)];
}

// The parts add up to the span and the classes to idle, on every stage and step.
void expectAddsUp(const PipelineResult& pl) {
  for (const auto& st : pl.stages) {
    for (const Split& s : st.perStep) {
      EXPECT_EQ(s.compute + s.exposedComm + s.otherBusy + s.idle, s.span);
      EXPECT_EQ(s.classSum(), s.idle);
      EXPECT_GE(s.idle, 0);
      for (TimeNs v : s.idleByClass) EXPECT_GE(v, 0);
    }
  }
}

TEST(Analysis, FaultFreeOneF1BIdlesOnlyInWarmupAndDrain) {
  SyntheticJob job;
  job.schedule = Schedule::oneF1B(4, 8);
  const AnalysisResult r = analyzeRun(synthesize(job));
  ASSERT_EQ(r.pipelines.size(), 1u);
  const PipelineResult& pl = r.pipelines[0];
  expectAddsUp(pl);
  EXPECT_EQ(r.pp, 4);
  EXPECT_EQ(r.topologySource, "metadata");
  EXPECT_EQ(r.ruleSet, "bubblescope");
  EXPECT_EQ(pl.steps.size(), 3u);
  EXPECT_EQ(pl.schedule.name, "1F1B");
  EXPECT_TRUE(pl.schedule.exact);
  for (const auto& st : pl.stages) {
    const Split& s = st.total;
    EXPECT_EQ(cls(s, IdleClass::Imbalance), 0) << "stage " << st.stage;
    EXPECT_EQ(cls(s, IdleClass::Jitter), 0) << "stage " << st.stage;
    EXPECT_EQ(
        cls(s, IdleClass::CommStall) + cls(s, IdleClass::HostStall) + cls(s, IdleClass::OtherStall),
        0)
        << "stage " << st.stage;
    EXPECT_EQ(
        cls(s, IdleClass::Warmup) + cls(s, IdleClass::Drain) + cls(s, IdleClass::ScheduleBubble),
        s.idle);
  }
  // Stage 0 starts at once but waits for the first backward to come back through three
  // stages (warm-up until its first backward), and in the cool-down waits for each remaining
  // backward after its last forward (drain).
  // The last stage waits for three forwards and transfers.
  EXPECT_GT(cls(pl.stages[0].total, IdleClass::Warmup), 3 * 3 * 4'000'000);
  EXPECT_GT(cls(pl.stages[0].total, IdleClass::Drain), 0);
  EXPECT_GT(cls(pl.stages[3].total, IdleClass::Warmup), 3 * 3 * 2'000'000);
  EXPECT_NEAR(pl.slowdown, 1.0, 1e-9);
  EXPECT_TRUE(pl.topGaps.empty());
}

// Without step marks the steps are cut where microbatch 0 starts again: a stage waiting in the
// receive of its first input belongs to the new step, so the analysis is the marked one's.
TEST(Analysis, StepsCutWithoutMarkersAnalyseLikeMarkedSteps) {
  SyntheticJob job;
  job.schedule = Schedule::oneF1B(4, 8);
  const traces::Run marked = synthesize(job);
  traces::Run unmarked = marked;
  for (auto& t : unmarked.ranks) {
    for (auto& name : t.ranges->name) {
      if (t.strings.at(name).starts_with("step ")) name = t.strings.intern("train_step");
    }
  }
  const PipelineResult a = analyzeRun(marked).pipelines.at(0);
  const PipelineResult b = analyzeRun(unmarked).pipelines.at(0);
  expectAddsUp(b);
  ASSERT_EQ(b.steps.size(), a.steps.size());
  for (size_t k = 0; k < a.steps.size(); ++k) {
    EXPECT_EQ(b.steps[k].start, a.steps[k].start) << "step " << k;
    EXPECT_EQ(b.steps[k].end, a.steps[k].end) << "step " << k;
  }
  EXPECT_EQ(b.stepTimeMeasured, a.stepTimeMeasured);
  EXPECT_DOUBLE_EQ(b.slowdown, 1.0);
  for (int s = 0; s < 4; ++s) {
    EXPECT_EQ(b.stages[s].total.idle, a.stages[s].total.idle) << "stage " << s;
    EXPECT_EQ(b.stages[s].total.exposedComm, a.stages[s].total.exposedComm) << "stage " << s;
    EXPECT_EQ(b.stages[s].total.idleByClass, a.stages[s].total.idleByClass) << "stage " << s;
  }
}

TEST(Analysis, SlowStageShowsAsImbalanceBlamedOnIt) {
  SyntheticJob job;
  job.schedule = Schedule::oneF1B(4, 8);
  job.cost = [](int stage, int, const engine::Op& op) {
    const TimeNs base = op.kind == engine::OpKind::BW ? 4'000'000 : 2'000'000;
    return stage == 2 ? base * 3 / 2 : base;
  };
  const AnalysisResult r = analyzeRun(synthesize(job));
  const PipelineResult& pl = r.pipelines[0];
  expectAddsUp(pl);
  Split all;
  for (const auto& st : pl.stages) all += st.total;
  // Imbalance is the largest class beyond the schedule's own bubbles.
  const TimeNs imbalance = cls(all, IdleClass::Imbalance);
  EXPECT_GT(imbalance, 0);
  for (IdleClass c :
       {IdleClass::Jitter, IdleClass::CommStall, IdleClass::HostStall, IdleClass::OtherStall}) {
    EXPECT_LT(cls(all, c), imbalance / 10) << idleClassName(c);
  }
  // Gaps with avoidable idle are blamed on stage 2.
  ASSERT_FALSE(pl.topGaps.empty());
  for (int g : pl.topGaps) {
    EXPECT_EQ(pl.gaps[g].blame.stage, 2) << pl.gaps[g].blame.text;
    EXPECT_EQ(pl.gaps[g].blame.cause, IdleClass::Imbalance) << pl.gaps[g].blame.text;
  }
  // S_2 stands out; S is what the simulator predicts for these costs.
  EXPECT_GT(pl.stages[2].slowdown, pl.stages[0].slowdown);
  engine::SimCosts real, ideal;
  real.perStage.assign(4, {2'000'000, 0, 0, 4'000'000});
  real.perStage[2] = {3'000'000, 0, 0, 6'000'000};
  real.transfer = job.transfer;
  ideal.perKind = {2'250'000, 0, 0, 4'500'000};
  ideal.transfer = job.transfer;
  const TimeNs tail = job.gradSync + job.optimizer;
  const double predicted = double(engine::simulate(job.schedule, real).makespan + tail) /
                           double(engine::simulate(job.schedule, ideal).makespan + tail);
  EXPECT_NEAR(pl.slowdown, predicted, 0.01 * predicted);
}

TEST(Analysis, StallIsLocatedAndItsKnockOnBlamedOnIt) {
  SyntheticJob job;
  job.schedule = Schedule::oneF1B(4, 8);
  job.stall[{1, 1, 5, engine::OpKind::F}] = 20'000'000;  // stage 1, step 1, F mb=5
  const AnalysisResult r = analyzeRun(synthesize(job));
  const PipelineResult& pl = r.pipelines[0];
  expectAddsUp(pl);
  // Stage 1 idles 20 ms in an unexplained stall, right before F mb=5 of step 1.
  EXPECT_NEAR(cls(pl.stages[1].perStep[1], IdleClass::OtherStall), 20'000'000, 200'000);
  bool found = false;
  for (const Gap& g : pl.gaps) {
    if (g.stage == 1 && g.step == 1 && g.nextOp >= 0 && pl.ops[g.nextOp].op.mb == 5 &&
        pl.ops[g.nextOp].op.kind == engine::OpKind::F) {
      found = true;
      EXPECT_EQ(g.dominant, IdleClass::OtherStall);
      EXPECT_EQ(g.blame.stage, 1);
      EXPECT_EQ(g.blame.op.mb, 5);
    }
  }
  EXPECT_TRUE(found);
  // Downstream stages wait for it: their stall is blamed on stage 1, F mb=5.
  for (int s : {2, 3}) {
    bool blamed = false;
    for (const Gap& g : pl.gaps) {
      if (g.stage == s && g.step == 1 && g.blame.stage == 1 && g.blame.op.mb == 5) blamed = true;
    }
    EXPECT_TRUE(blamed) << "stage " << s;
  }
  // Other steps are clean.
  EXPECT_EQ(cls(pl.stages[1].perStep[0], IdleClass::OtherStall), 0);
}

TEST(Analysis, HostBusyBeforeAnOpIsAHostStall) {
  SyntheticJob job;
  job.schedule = Schedule::oneF1B(4, 8);
  job.stall[{2, 0, 3, engine::OpKind::F}] = 10'000'000;
  job.hostBusy = true;
  const AnalysisResult r = analyzeRun(synthesize(job));
  const PipelineResult& pl = r.pipelines[0];
  expectAddsUp(pl);
  // 10 ms, less the 0.1 ms the ideal schedule also waits there for the transfer.
  EXPECT_NEAR(cls(pl.stages[2].perStep[0], IdleClass::HostStall), 10'000'000, 200'000);
  // Timing shifted by the stall can leave a transfer wait the simulations do not have: tiny.
  EXPECT_LE(cls(pl.stages[2].perStep[0], IdleClass::OtherStall), 200'000);
  // Its knock-on idle elsewhere is a host stall too, blamed on stage 2's F mb=3.
  for (int g : pl.topGaps) {
    EXPECT_EQ(pl.gaps[g].blame.cause, IdleClass::HostStall) << pl.gaps[g].blame.text;
    EXPECT_EQ(pl.gaps[g].blame.stage, 2) << pl.gaps[g].blame.text;
  }
}

// The engine's receiver threads open RECV ranges whenever messages come in, also while the main
// thread loads data: work of another thread must not make the data loading look like a wrapper.
TEST(Analysis, HostBusyStaysAHostStallWhileAnotherThreadStartsWork) {
  SyntheticJob job;
  job.schedule = Schedule::oneF1B(4, 8);
  job.stall[{2, 0, 3, engine::OpKind::F}] = 10'000'000;
  job.hostBusy = true;
  traces::Run run = synthesize(job);
  traces::RankTrace& t = run.ranks[2];
  const traces::StringId loader = t.strings.intern("dataloader");
  size_t i = 0;
  while (i < t.ranges->size() && t.ranges->name[i] != loader) ++i;
  ASSERT_LT(i, t.ranges->size());
  const TimeNs start = t.ranges->start[i] + 1'000'000;
  t.ranges->start.push_back(start);
  t.ranges->end.push_back(start + 1'000);
  t.ranges->thread.push_back(1);
  t.ranges->domain.push_back(0);
  t.ranges->name.push_back(t.strings.intern("loss"));
  t.ranges->depth.push_back(0);
  t.ranges->kind.push_back(traces::RangeKind::PushPop);
  traces::sortEvents(t);
  const AnalysisResult r = analyzeRun(run);
  EXPECT_NEAR(cls(r.pipelines[0].stages[2].perStep[0], IdleClass::HostStall), 10'000'000, 200'000);
}

TEST(Analysis, LateTransfersAreCommStalls) {
  SyntheticJob job;
  job.schedule = Schedule::oneF1B(4, 8);
  job.commDelay[1] = 1'000'000;  // everything stage 1 sends arrives 1 ms late
  const AnalysisResult r = analyzeRun(synthesize(job));
  const PipelineResult& pl = r.pipelines[0];
  expectAddsUp(pl);
  Split all;
  for (const auto& st : pl.stages) all += st.total;
  const TimeNs comm = cls(all, IdleClass::CommStall);
  EXPECT_GT(comm, 0);
  EXPECT_GT(comm, 5 * (cls(all, IdleClass::OtherStall) + cls(all, IdleClass::HostStall)));
  for (int g : pl.topGaps) EXPECT_EQ(pl.gaps[g].blame.cause, IdleClass::CommStall);
}

TEST(Analysis, ClockSkewIsFoundAndCorrected) {
  SyntheticJob job;
  job.schedule = Schedule::oneF1B(4, 8);
  const AnalysisResult clean = analyzeRun(synthesize(job));
  job.clockSkew = {0, 0, 5'000'000, 5'000'000};  // stages 2 and 3 run 5 ms ahead
  const AnalysisResult skewed = analyzeRun(synthesize(job));
  EXPECT_GT(skewed.clock.maxCorrection, 4'000'000);
  EXPECT_LT(skewed.clock.offsets[2], -4'000'000);
  const auto& a = clean.pipelines[0];
  const auto& b = skewed.pipelines[0];
  for (int s = 0; s < 4; ++s) {
    EXPECT_NEAR(b.stages[s].total.idle, a.stages[s].total.idle, 0.02 * a.stages[s].total.span)
        << "stage " << s;
  }
}

TEST(Analysis, InterleavedAndZeroBubbleRunsAreRecognised) {
  for (const Schedule& s : {Schedule::interleaved1F1B(4, 8, 2), Schedule::zbH1(4, 8)}) {
    SyntheticJob job;
    job.schedule = s;
    const AnalysisResult r = analyzeRun(synthesize(job));
    const PipelineResult& pl = r.pipelines[0];
    expectAddsUp(pl);
    EXPECT_EQ(pl.schedule.name, engine::scheduleName(s.kind));
    Split all;
    for (const auto& st : pl.stages) all += st.total;
    EXPECT_EQ(cls(all, IdleClass::Imbalance) + cls(all, IdleClass::Jitter) +
                  cls(all, IdleClass::CommStall) + cls(all, IdleClass::HostStall) +
                  cls(all, IdleClass::OtherStall),
              0)
        << engine::scheduleName(s.kind);
  }
}

TEST(Analysis, WhatIfTableCoversEverySchedule) {
  SyntheticJob job;
  job.schedule = Schedule::oneF1B(4, 8);
  const PipelineResult pl = analyzeRun(synthesize(job)).pipelines[0];
  std::vector<std::string> names;
  for (const auto& w : pl.whatIf) names.push_back(w.scenario);
  ASSERT_GE(pl.whatIf.size(), 9u);
  EXPECT_EQ(names[0], "measured");
  EXPECT_NE(std::find(names.begin(), names.end(), "ZB-H1"), names.end());
  for (const auto& w : pl.whatIf) {
    EXPECT_TRUE(w.available) << w.scenario << ": " << w.note;
    EXPECT_GT(w.stepTime, 0) << w.scenario;
  }
  // Zero-bubble beats 1F1B at the same costs; GPipe has the same bubble up to transfers.
  auto at = [&](const std::string& n) {
    return *std::find_if(pl.whatIf.begin(), pl.whatIf.end(),
                         [&](const WhatIf& w) { return w.scenario == n; });
  };
  EXPECT_LT(at("ZB-H1").stepTime, at("1F1B").stepTime);
  EXPECT_NEAR(at("GPipe").stepTime, at("1F1B").stepTime, 0.02 * at("1F1B").stepTime);
  EXPECT_FALSE(at("ZB-H1").note.empty());  // says what W share was assumed
}

TEST(AnalysisInput, NothingRecognisedNamesTheRuleSetsTried) {
  traces::Run run;
  run.dir = "somewhere";
  run.ranks.resize(1);
  auto& t = run.ranks[0];
  t.threadIndex(1);
  t.ranges->start = {0};
  t.ranges->end = {10};
  t.ranges->thread = {0};
  t.ranges->domain = {0};
  t.ranges->name = {t.strings.intern("train_step")};
  t.ranges->depth = {0};
  t.ranges->kind = {traces::RangeKind::PushPop};
  try {
    analyzeRun(run);
    FAIL();
  } catch (const AnalysisInputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("no pipeline ops"), std::string::npos) << msg;
    EXPECT_NE(msg.find("torch.distributed.pipelining"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'F mb=<n>'"), std::string::npos) << msg;
  }
}

TEST(AnalysisInput, MissingStageIsNamed) {
  SyntheticJob job;
  job.schedule = Schedule::oneF1B(4, 8);
  traces::Run run = synthesize(job);
  run.ranks.erase(run.ranks.begin() + 2);
  try {
    analyzeRun(run);
    FAIL();
  } catch (const AnalysisInputError& e) {
    EXPECT_NE(std::string(e.what()).find("no trace for stage 2"), std::string::npos) << e.what();
  }
}

TEST(AnalysisInput, AStepTheSimulatorCannotReRunIsLeftOutWithTheSimulatorsReason) {
  SyntheticJob job;
  job.schedule = Schedule::oneF1B(4, 8);
  traces::Run run = synthesize(job);
  // Stage 2 loses its F mb=3 of the second step (a partial capture): stage 3's F mb=3 has no
  // input to wait for.
  auto& t = run.ranks[2];
  int seen = 0;
  for (size_t i = 0; i < t.ranges->size(); ++i) {
    if (t.strings.at(t.ranges->name[i]) != "F mb=3" || seen++ != 1) continue;
    t.ranges->forEachColumn([&](auto& column) { column.erase(column.begin() + i); });
    break;
  }
  const AnalysisResult r = analyzeRun(run);
  ASSERT_EQ(r.pipelines.size(), 1u);
  EXPECT_EQ(r.pipelines[0].steps.size(), 2u);
  std::string warning;
  for (const auto& w : r.warnings) {
    if (w.find("cannot be re-run by the simulator") != std::string::npos) warning = w;
  }
  ASSERT_FALSE(warning.empty());
  // The simulator's own sentence, not just that it failed.
  EXPECT_NE(warning.find("waits for F3 of virtual stage 2 (stage 2), which no stage runs"),
            std::string::npos)
      << warning;
  EXPECT_GT(warning.find("; a partial capture?"), warning.find("simulator (") + 12) << warning;
}

TEST(AnalysisInput, TwoRunsMixedAreRefused) {
  SyntheticJob job;
  job.schedule = Schedule::oneF1B(2, 4);
  traces::Run run = synthesize(job);
  run.ranks[1].meta.runId = "another";
  EXPECT_THROW(analyzeRun(run), AnalysisInputError);
}

}  // namespace
}  // namespace bubblescope::analysis
