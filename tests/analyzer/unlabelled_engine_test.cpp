// The inference tested end to end: the reference engine run with --no-labels (no range of its
// own; its transfers and all-reduces show only as NCCL's own ranges would) and with its labels,
// each recorded by `bubblescope record` and analysed. The unlabelled run's answers must be the
// labelled run's, and must be what the engine itself did (truth.json keeps the labels it did not
// emit): the same ops, the same classes and culprit, the same S.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>
#include <vector>

#include "analyzer/analyze.h"
#include "analyzer/result/errors.h"
#include "reference_engine/executor/range_names.h"
#include "tests/analyzer/idle/gap_invariants.h"
#include "tests/support/engine_noise.h"
#include "tests/support/engine_recording.h"
#include "tests/support/temp_dir.h"
#include "traces/model/sort.h"
#include "traces/sqlite/run_reader.h"

namespace bubblescope::analysis {
namespace {

using nlohmann::json;
using testing::recordEngineRun;
using testing::recordSteadyEngineRun;
using testing::TempDir;
namespace fs = std::filesystem;

// Timing noise of two runs on a loaded 2-core machine (a sleep that overran by a few ms) moves S
// by a few percent between runs; the same run read with and without labels has only what the
// noise does to the ops inferred from its transfers (within 2%, or the run's measured stretch).
constexpr double kSameRunS = 0.02;
// Two runs: as the labelled validation holds S against the simulator, over the median step.
constexpr double kOtherRunS = 0.05;

// The unlabelled run with the labels the engine kept to itself (truth.json) put back into its
// traces: the labelled answer for the very same run. The workload's own host ranges (the data
// loader) were emitted already.
traces::Run withEngineLabels(traces::Run run, const json& truth) {
  for (traces::RankTrace& t : run.ranks) {
    const json& stage = truth.at("stages").at(static_cast<size_t>(t.meta.rank));
    for (const json& r : stage.at("nvtx")) {
      const std::string name = r.at("name");
      if (name == engine::kDataloaderRange) continue;
      t.ranges->start.push_back(r.at("start_ns").get<TimeNs>());
      t.ranges->end.push_back(r.at("end_ns").get<TimeNs>());
      t.ranges->thread.push_back(t.threadIndex(r.at("tid").get<uint64_t>()));
      t.ranges->domain.push_back(t.strings.intern(""));
      t.ranges->name.push_back(t.strings.intern(name));
      t.ranges->depth.push_back(0);
      t.ranges->kind.push_back(traces::RangeKind::PushPop);
    }
    traces::sortByStart(t.ranges);
  }
  return run;
}

struct Runs {
  AnalysisResult labelled;    // a run of the engine with its labels
  AnalysisResult unlabelled;  // another run of the same config, --no-labels
  AnalysisResult sameRun;     // the unlabelled run, its labels put back
  json truth;                 // the unlabelled run's
  std::string tooLoaded;  // why neither is analysed: the machine stretched a run (engine_noise.h)
  // What the machine stretched the unlabelled run by, with its transfers' own time, a share of
  // its step (RunNoise::spread): the ops inferred from its transfers move with both, the
  // labelled reading's ranges do not.
  double unlabelledNoise = 0;
};

// Records each config once per test binary (labelled and not), and analyses steps 1 onwards
// (step 0 warms up), as the labelled validation does.
const Runs& runs(const std::vector<std::string>& args) {
  static TempDir dir("bubblescope-unlabelled");
  static std::map<std::vector<std::string>, Runs> cache;
  if (auto it = cache.find(args); it != cache.end()) return it->second;
  AnalyzeOptions options;
  options.firstStep = 1;
  Runs out;
  const fs::path base = dir.path() / ("run" + std::to_string(cache.size()));
  for (bool labels : {true, false}) {
    const fs::path d = base / (labels ? "labelled" : "unlabelled");
    fs::create_directories(d);
    std::vector<std::string> a = args;
    if (!labels) a.push_back("--no-labels");
    const auto r = recordSteadyEngineRun((d / "run").string(), (d / "truth.json").string(), a);
    EXPECT_EQ(r.process.exitCode, 0) << r.process.err;
    if (!r.steady) {
      out.tooLoaded = r.tooLoaded() + (labels ? " (labelled)" : " (--no-labels)");
      break;
    }
    if (!labels) out.unlabelledNoise = r.noise.spread();
    traces::Run run = traces::readRun(d / "run");
    if (labels) {
      out.labelled = analyzeRun(run, options);
      continue;
    }
    std::ifstream in(d / "truth.json");
    out.truth = json::parse(in);
    out.unlabelled = analyzeRun(run, options);
    out.sameRun = analyzeRun(withEngineLabels(std::move(run), out.truth), options);
    for (const AnalysisResult* result : {&out.labelled, &out.unlabelled, &out.sameRun}) {
      for (const auto& pl : result->pipelines) testing::expectGapInvariants(pl);
    }
  }
  return cache.emplace(args, std::move(out)).first->second;
}

TimeNs idleOf(const PipelineResult& pl, IdleClass c) {
  return pl.total.idleByClass[static_cast<int>(c)];
}

// The class of idle a better balance or run would win back that holds the most.
IdleClass dominantAvoidable(const PipelineResult& pl) {
  IdleClass best = IdleClass::Imbalance;
  for (IdleClass c : {IdleClass::Imbalance, IdleClass::Jitter, IdleClass::CommStall,
                      IdleClass::HostStall, IdleClass::OtherStall}) {
    if (idleOf(pl, c) > idleOf(pl, best)) best = c;
  }
  return best;
}

// The stage the most idle of class `c` is blamed on (-1: none).
int culprit(const PipelineResult& pl, IdleClass c) {
  std::map<int, TimeNs> blamed;
  for (const Gap& g : pl.gaps) blamed[g.blame.stage] += g.byClass[static_cast<int>(c)];
  int best = -1;
  for (const auto& [stage, idle] : blamed) {
    if (best == -1 || idle > blamed[best]) best = stage;
  }
  return best;
}

// Forwards per (stage, step): the microbatches each stage ran in each step.
std::map<std::pair<int, int>, int> forwardsPerStageStep(const PipelineResult& pl) {
  std::map<std::pair<int, int>, int> n;
  for (const OpRecord& o : pl.ops) {
    if (o.op.kind == OpKind::F) ++n[{o.stage, o.step}];
  }
  return n;
}

void expectSameStructure(const PipelineResult& a, const PipelineResult& b,
                         const std::string& what) {
  EXPECT_EQ(a.stages.size(), b.stages.size()) << what;
  ASSERT_EQ(a.steps.size(), b.steps.size()) << what;
  for (size_t k = 0; k < a.steps.size(); ++k)
    EXPECT_EQ(a.steps[k].number, b.steps[k].number) << what;
  EXPECT_EQ(forwardsPerStageStep(a), forwardsPerStageStep(b)) << what;
  EXPECT_EQ(a.schedule.name, b.schedule.name) << what;
  EXPECT_EQ(a.ops.size(), b.ops.size()) << what;
}

// The inferred ops are the ops the engine ran: each (stage, step, kind, microbatch) once. Most of
// their boundaries are a call's, exact to the microseconds it takes to post one; a split with no
// call between its two ops is estimated from durations, off by what noise an op had (a sleep that
// overran on a loaded machine): nine in ten ops within half a millisecond.
void expectTheEnginesOps(const AnalysisResult& r, const json& truth) {
  const PipelineResult& pl = r.pipelines.at(0);
  std::map<std::tuple<int, int64_t, std::string, int, int>, std::pair<TimeNs, TimeNs>> ran;
  for (const json& stage : truth.at("stages")) {
    for (const json& o : stage.at("ops")) {
      if (o.at("step").get<int64_t>() < pl.steps.front().number) continue;
      ran[{stage.at("stage").get<int>(), o.at("step").get<int64_t>(),
           o.at("kind").get<std::string>(), o.at("mb").get<int>(), o.value("chunk", 0)}] = {
          o.at("start_ns").get<TimeNs>(), o.at("end_ns").get<TimeNs>()};
    }
  }
  ASSERT_EQ(pl.ops.size(), ran.size());
  size_t close = 0;
  std::vector<TimeNs> errors;
  for (const OpRecord& o : pl.ops) {
    const int stage = o.stage;
    const auto it = ran.find({stage, pl.steps[o.step].number,
                              std::string(engine::kindName(o.op.kind)), o.op.mb, o.op.chunk});
    ASSERT_NE(it, ran.end()) << "stage " << stage << " step " << pl.steps[o.step].number << " "
                             << engine::label(o.op);
    const TimeNs offset = r.clock.offsets.at(static_cast<size_t>(stage));
    const TimeNs startError = std::abs(o.start - offset - it->second.first);
    const TimeNs endError = std::abs(o.end - offset - it->second.second);
    errors.push_back(startError);
    errors.push_back(endError);
    close += startError < 500'000 && endError < 500'000;
  }
  EXPECT_GE(close * 10, pl.ops.size() * 9) << close << " of " << pl.ops.size();
  std::nth_element(errors.begin(), errors.begin() + static_cast<std::ptrdiff_t>(errors.size() / 2),
                   errors.end());
  EXPECT_LT(errors[errors.size() / 2], 50'000) << "median boundary error (ns)";
}

// S over the median step: one step of a run slowed by a scheduler hiccup of this shared machine
// (not by anything the run did) does not decide a comparison of two runs.
double medianStepS(const PipelineResult& pl) {
  std::vector<TimeNs> d;
  for (const StepInfo& s : pl.steps) d.push_back(s.duration());
  std::nth_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(d.size() / 2), d.end());
  return static_cast<double>(d[d.size() / 2]) / static_cast<double>(pl.stepTimeIdeal);
}

// What every case asserts: the report says the ops were inferred; the unlabelled run's
// structure, dominant class, culprit and S are the labelled run's and the same run's labelled
// answer's; its ops are the engine's. `fault`: the class the injected fault must dominate, with
// its stage (none: the schedule's own bubble must dominate).
void expectSameAnswers(const std::vector<std::string>& args, std::optional<IdleClass> fault,
                       int faultStage) {
  std::string what;
  for (const auto& a : args) what += a + " ";
  const Runs& r = runs(args);
  if (!r.tooLoaded.empty()) GTEST_SKIP() << r.tooLoaded;
  ASSERT_EQ(r.labelled.pipelines.size(), 1u) << what;
  ASSERT_EQ(r.unlabelled.pipelines.size(), 1u) << what;
  ASSERT_EQ(r.sameRun.pipelines.size(), 1u) << what;
  EXPECT_EQ(r.unlabelled.ruleSet, "none (ops inferred from p2p traffic)") << what;
  EXPECT_TRUE(r.unlabelled.inference.fromP2p) << what;
  EXPECT_EQ(r.unlabelled.topologySource, "p2p") << what;
  EXPECT_EQ(r.sameRun.ruleSet, "bubblescope") << what;
  const PipelineResult& lab = r.labelled.pipelines[0];
  const PipelineResult& unl = r.unlabelled.pipelines[0];
  const PipelineResult& same = r.sameRun.pipelines[0];
  expectSameStructure(lab, unl, what + "(the labelled run)");
  expectSameStructure(same, unl, what + "(the same run, labelled)");
  expectTheEnginesOps(r.unlabelled, r.truth);

  for (const PipelineResult* pl : {&lab, &unl, &same}) {
    const std::string which = what + (pl == &lab   ? "(labelled)"
                                      : pl == &unl ? "(unlabelled)"
                                                   : "(same run, labelled)");
    if (!fault) {
      const TimeNs bubble = idleOf(*pl, IdleClass::Warmup) + idleOf(*pl, IdleClass::Drain) +
                            idleOf(*pl, IdleClass::ScheduleBubble);
      EXPECT_GT(bubble, 2 * idleOf(*pl, dominantAvoidable(*pl))) << which;
      continue;
    }
    EXPECT_STREQ(idleClassName(dominantAvoidable(*pl)), idleClassName(*fault)) << which;
    EXPECT_EQ(culprit(*pl, *fault), faultStage) << which;
  }
  // The figures, for the log (docs/analysis.md quotes them).
  std::printf(
      "%s: S labelled run %.4f, unlabelled run %.4f, the unlabelled run labelled %.4f (the "
      "machine's stretch and the transfers of the unlabelled run: %.1f%% of its step)\n",
      what.c_str(), lab.slowdown, unl.slowdown, same.slowdown, 100 * r.unlabelledNoise);
  // A loaded machine's stretch moves the ops inferred from the transfers (a late post reads as a
  // later op edge): the same run's two readings agree to within 2%, or within the stretch where
  // it is more (2.07% apart under a CI suite's load; 0.03-0.6% on a quiet machine, stretched
  // 1.5-3.6%).
  EXPECT_NEAR(unl.slowdown, same.slowdown, std::max(kSameRunS, r.unlabelledNoise) * same.slowdown)
      << what;
  EXPECT_NEAR(medianStepS(unl), medianStepS(lab), kOtherRunS * medianStepS(lab)) << what;
}

TEST(UnlabelledEngine, OneF1BFaultFreeIsTheLabelledAnswer) {
  expectSameAnswers({"--schedule", "1f1b", "-p", "4", "-m", "8"}, std::nullopt, -1);
}

TEST(UnlabelledEngine, GPipeFaultFreeIsTheLabelledAnswer) {
  expectSameAnswers({"--schedule", "gpipe", "-p", "4", "-m", "8"}, std::nullopt, -1);
}

TEST(UnlabelledEngine, SlowStageIsImbalanceBlamedOnItWithoutLabels) {
  expectSameAnswers({"--schedule", "1f1b", "-p", "4", "-m", "8", "--slow-stage", "2:1.5"},
                    IdleClass::Imbalance, 2);
  expectSameAnswers({"--schedule", "gpipe", "-p", "4", "-m", "8", "--slow-stage", "1:1.5"},
                    IdleClass::Imbalance, 1);
}

TEST(UnlabelledEngine, CommDelayIsACommStallWithoutLabels) {
  expectSameAnswers({"--schedule", "1f1b", "-p", "4", "-m", "8", "--comm-delay", "1:3"},
                    IdleClass::CommStall, 1);
}

TEST(UnlabelledEngine, HostStallIsAHostStallInItsDataLoaderWithoutLabels) {
  const std::vector<std::string> args = {"--schedule", "1f1b", "-p",           "4",
                                         "-m",         "8",    "--host-stall", "1:5:20:2"};
  expectSameAnswers(args, IdleClass::HostStall, 1);
  if (IsSkipped() || HasFatalFailure()) return;
  // The blame names the workload's own range, which --no-labels keeps.
  bool named = false;
  for (const Gap& g : runs(args).unlabelled.pipelines[0].gaps) {
    named = named || (g.blame.cause == IdleClass::HostStall &&
                      g.blame.text.find("'dataloader'") != std::string::npos);
  }
  EXPECT_TRUE(named);
}

// Interleaved 1F1B sends from the last stage back to the first (its next chunk): the peers form a
// ring, which the inference does not take for a pipeline, and the refusal says why.
TEST(UnlabelledEngine, InterleavedIsRefusedNamingItsRing) {
  TempDir dir("bubblescope-unlabelled-interleaved");
  const auto r =
      recordEngineRun((dir.path() / "run").string(), (dir.path() / "truth.json").string(),
                      {"--schedule", "interleaved", "-p", "4", "-m", "4", "--no-labels"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  try {
    analyzeRun(traces::readRun(dir.path() / "run"), {});
    ADD_FAILURE() << "an interleaved run without labels was analysed";
  } catch (const AnalysisInputError& e) {
    EXPECT_NE(std::string(e.what()).find("forms no chain in 1 rank set(s)"), std::string::npos)
        << e.what();
  }
}

// ZB-V crosses the links of a chain both ways, moving what a chain of twice the microbatches
// would; its order of sends and receives is ZB-V's, which says which op each is and where each W
// ran: the labelled answer, Ws and chunks included.
TEST(UnlabelledEngine, ZbVIsReadAsAVWithItsWs) {
  const std::vector<std::string> args = {"--schedule", "zbv", "-p", "4", "-m", "8"};
  expectSameAnswers(args, std::nullopt, -1);
  if (IsSkipped() || HasFatalFailure()) return;
  const AnalysisResult& res = runs(args).unlabelled;
  EXPECT_EQ(res.inference.confidence, "high") << res.inference.evidence;
  EXPECT_NE(res.inference.evidence.find("ZB-V order of a V placement"), std::string::npos)
      << res.inference.evidence;
  const PipelineResult& pl = res.pipelines.at(0);
  EXPECT_EQ(pl.schedule.m, 8);
  EXPECT_EQ(pl.schedule.v, 2);
  EXPECT_TRUE(pl.schedule.exact);
  size_t ws = 0;
  for (const OpRecord& o : pl.ops) ws += o.op.kind == OpKind::W;
  EXPECT_EQ(ws, pl.ops.size() / 3);  // F, B and W of every microbatch and chunk
}

TEST(UnlabelledEngine, ZbVSlowStageIsImbalanceBlamedOnItWithoutLabels) {
  expectSameAnswers({"--schedule", "zbv", "-p", "4", "-m", "8", "--slow-stage", "1:1.5"},
                    IdleClass::Imbalance, 1);
}

}  // namespace
}  // namespace bubblescope::analysis
