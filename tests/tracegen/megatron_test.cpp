// Megatron-LM jobs as NDTimeline traces them (PP x TP x DP), imported and analysed: each DP
// replica's pipeline is analysed as one, and the analysis agrees with the execution model's truth.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "analyzer/analyze.h"
#include "analyzer/check/report_figures.h"
#include "analyzer/report/html_report.h"
#include "analyzer/report/json_report.h"
#include "analyzer/report/junit_report.h"
#include "analyzer/report/markdown_report.h"
#include "analyzer/report/text_report.h"
#include "tests/support/temp_dir.h"
#include "tests/tracegen/megatron_truth.h"
#include "tests/tracegen/ndtimeline_writer.h"
#include "traces/import/run_import.h"

namespace bubblescope::tracegen {
namespace {

struct Analysed {
  MegatronTruth truth;
  traces::import::ImportedRun imported;
  analysis::AnalysisResult result;
};

Analysed analyse(const MegatronJob& job, bool gzip = false) {
  testing::TempDir dir;
  const MegatronTimeline tl = executeMegatron(job);
  const auto file = dir.path() / (gzip ? "timeline.json.gz" : "timeline.json");
  writeNdTimeline(tl, file, gzip);
  Analysed out;
  out.truth = megatronTruth(tl);
  out.imported = traces::import::importRun(traces::import::resolveInputs({file}));
  out.result = analysis::analyzeRun(out.imported.run);
  return out;
}

TEST(MegatronModel, FaultFreeOneF1BStepIsTheTextbookFormula) {
  MegatronJob job;
  job.pp = 4, job.dp = 1, job.m = 8, job.transfer = 0, job.tpSkew = 0;
  const MegatronTimeline tl = executeMegatron(job);
  // (m + p - 1)(F + B) of pipeline, data-load before it, the tail after it.
  const TimeNs pipeline = (job.m + job.pp - 1) * (job.costF + job.costB);
  const TimeNs tail = job.reduceScatter + job.clipGrad + job.optimizer + job.allGather;
  EXPECT_EQ(tl.stepEnd[0] - tl.stepStart[0], job.dataLoad + pipeline + tail);
  EXPECT_NEAR(megatronTruth(tl).slowdown, 1.0, 1e-9);
}

TEST(MegatronModel, ASlowReplicaHoldsEveryReplicaAtTheSync) {
  MegatronJob job;
  job.slowReplica = 0;
  job.slowReplicaFactor = 1.5;
  const MegatronTimeline tl = executeMegatron(job);
  // Replica 1 ends its pipeline early, but its reduce-scatter starts with replica 0's.
  TimeNs rs[2] = {0, 0};
  for (const NdRank& r : tl.ranks) {
    for (const NdEvent& e : r.events) {
      if (e.step == 0 && e.name == "grads-reduce-scatter" && r.pp == 0) rs[r.dp] = e.start;
    }
  }
  EXPECT_EQ(rs[0], rs[1]);
  EXPECT_GT(megatronTruth(tl).slowdown, 1.15);
}

TEST(MegatronModel, InterleavedStepRunsEveryChunkOfEveryMicrobatch) {
  MegatronJob job;
  job.v = 2, job.dp = 1, job.steps = 1;
  const MegatronTimeline tl = executeMegatron(job);
  ASSERT_EQ(tl.ops.size(), static_cast<size_t>(2 * job.pp * job.m * job.v));
  int chunk1 = 0;
  for (const GroupOp& op : tl.ops) chunk1 += op.chunk == 1;
  EXPECT_EQ(chunk1, 2 * job.pp * job.m);  // F and B of every microbatch on every stage
  // Shorter than 1F1B with whole-stage ops of twice the cost: the bubble shrinks by v.
  MegatronJob whole = job;
  whole.v = 1, whole.costF *= 2, whole.costB *= 2;
  const MegatronTimeline one = executeMegatron(whole);
  EXPECT_LT(tl.stepEnd[0] - tl.stepStart[0], one.stepEnd[0] - one.stepStart[0]);
}

TEST(MegatronImport, Pp4Dp2TimelineIsAnalysedReplicaByReplica) {
  MegatronJob job;  // PP4 x DP2, fault-free
  const Analysed a = analyse(job, /*gzip=*/true);
  EXPECT_EQ(a.imported.run.ranks.size(), 8u);
  EXPECT_EQ(a.result.pp, 4);
  EXPECT_EQ(a.result.dp, 2);
  EXPECT_EQ(a.result.topologySource, "metadata");
  ASSERT_EQ(a.result.pipelines.size(), 2u);
  for (const auto& pl : a.result.pipelines) {
    EXPECT_EQ(pl.stages.size(), 4u);
    EXPECT_EQ(pl.steps.size(), 3u);
    EXPECT_EQ(pl.schedule.name, "1F1B");
    EXPECT_NEAR(pl.slowdown, a.truth.slowdown, 0.03 * a.truth.slowdown);
  }
  EXPECT_EQ(a.result.pipelines[1].dpRank, 1);
  // Stage s of replica d is global rank d + 2s (Megatron's order).
  EXPECT_EQ(a.result.pipelines[1].stages[2].rank, 5);
}

// NDTimeline publishes its thread names after all the events; where the metadata sits must change
// nothing the analysis says, to the byte.
TEST(MegatronImport, MetadataFirstLastOrInterleavedGiveByteIdenticalReports) {
  MegatronJob job;
  job.jitter = 0.02;
  job.slowStage = 3, job.slowStageFactor = 1.3;
  const MegatronTimeline tl = executeMegatron(job);
  testing::TempDir dir;
  const auto file = dir.path() / "timeline.json.gz";  // one name: the reports quote it
  std::vector<std::string> texts, jsons, notes;
  for (NdMetadata m : {NdMetadata::First, NdMetadata::Last, NdMetadata::Interleaved}) {
    const std::string written = ndTimelineJson(tl, m);
    const size_t firstMeta = written.find(R"("ph":"M")"), firstTimed = written.find(R"("ph":"X")");
    // What each placement is: all names before every event, after every event, or among them.
    const size_t lastTimed = written.rfind(R"("ph":"X")");
    EXPECT_EQ(firstMeta < firstTimed, m == NdMetadata::First);
    EXPECT_EQ(firstMeta > lastTimed, m == NdMetadata::Last);
    writeNdTimeline(tl, file, /*gzip=*/true, m);
    const auto imported = traces::import::importRun(traces::import::resolveInputs({file}));
    ASSERT_EQ(imported.files.size(), 1u);
    EXPECT_EQ(imported.files[0].format, "ndtimeline");
    EXPECT_EQ(imported.run.ranks.size(), 8u);
    std::string n;
    for (const std::string& note : imported.files[0].notes) n += note + "\n";
    notes.push_back(n);
    const analysis::AnalysisResult result = analysis::analyzeRun(imported.run);
    std::ostringstream text;
    analysis::writeTextReport(result, text, {});
    texts.push_back(text.str());
    jsons.push_back(analysis::jsonReportText(result, 1, analysis::JsonDetail::Full));
  }
  EXPECT_NE(texts[0].find("culprit:  stage 3: S_s = "), std::string::npos) << texts[0];
  for (size_t i = 1; i < texts.size(); ++i) {
    EXPECT_EQ(notes[i], notes[0]) << i;
    EXPECT_EQ(texts[i], texts[0]) << i;
    EXPECT_EQ(jsons[i], jsons[0]) << i;
  }
}

struct JobCase {
  std::string name;
  MegatronJob job;
  std::string culprit;  // how the culprit sentence begins
};

void PrintTo(const JobCase& c, std::ostream* os) {
  *os << c.name;
}

std::vector<JobCase> jobCases() {
  std::vector<JobCase> out;
  MegatronJob base;
  base.jitter = 0.02;
  out.push_back({"FaultFreePp4Dp2", base, "no straggler"});
  {
    MegatronJob j = base;
    j.slowReplica = 0, j.slowReplicaFactor = 1.5;
    out.push_back({"SlowReplicaPp4Dp2", j, "DP replica 0, every stage: S_d = "});
  }
  {
    MegatronJob j = base;
    j.slowStage = 3, j.slowStageFactor = 1.4;
    out.push_back({"SlowStagePp4Dp2", j, "stage 3: S_s = "});
  }
  {
    MegatronJob j = base;
    j.seqFactor = {1, 1, 1.8, 1, 1, 1, 1.5, 1};
    out.push_back({"SequenceLengthsPp4Dp2", j, "sequence-length imbalance"});
  }
  {
    MegatronJob j = base;
    j.pp = 2, j.dp = 32, j.m = 4;
    j.slowReplica = 17, j.slowReplicaFactor = 1.3;
    out.push_back({"SlowReplicaPp2Dp32", j, "DP replica 17, every stage: S_d = "});
  }
  {
    MegatronJob j = base;
    j.pp = 4, j.tp = 4, j.dp = 4;
    j.slowTpRank = MegatronJob::TpRank{1, 2, 3}, j.slowTpFactor = 1.5;
    out.push_back({"SlowTpRankPp4Tp4Dp4", j, "DP replica 1, stage 2: S_d = "});
  }
  {
    MegatronJob j = base;
    j.pp = 4, j.tp = 4, j.dp = 4;
    out.push_back({"FaultFreePp4Tp4Dp4", j, "no straggler"});
  }
  {
    MegatronJob j = base;
    j.v = 2, j.costF /= 2, j.costB /= 2;
    out.push_back({"FaultFreeInterleavedPp4Dp2", j, "no straggler"});
    j.slowStage = 1, j.slowStageFactor = 1.4;
    out.push_back({"SlowStageInterleavedPp4Dp2", j, "stage 1: S_s = "});
  }
  return out;
}

class MegatronJobs : public ::testing::TestWithParam<JobCase> {};

TEST_P(MegatronJobs, CulpritAndSlowdownMatchTheTruth) {
  const JobCase& c = GetParam();
  const Analysed a = analyse(c.job);
  const analysis::JobResult& job = a.result.job;
  ASSERT_TRUE(job.present);
  EXPECT_EQ(a.result.dp, c.job.dp);
  EXPECT_EQ(a.result.pp, c.job.pp);
  EXPECT_EQ(a.result.tp, c.job.tp);
  EXPECT_EQ(job.steps, c.job.steps);
  EXPECT_NEAR(job.slowdown, a.truth.slowdown, 0.03 * a.truth.slowdown)
      << "measured " << job.stepTimeMeasured << " ideal " << job.stepTimeIdeal << " truth "
      << a.truth.measuredStep << " / " << a.truth.idealStep;
  EXPECT_EQ(job.culprit.rfind(c.culprit, 0), 0u) << job.culprit;
  const int dp = c.job.slowReplica  ? *c.job.slowReplica
                 : c.job.slowTpRank ? c.job.slowTpRank->dp
                                    : -1;
  const int stage = c.job.slowStage    ? *c.job.slowStage
                    : c.job.slowTpRank ? c.job.slowTpRank->pp
                                       : -1;
  EXPECT_EQ(job.culpritDp, dp);
  EXPECT_EQ(job.culpritStage, stage);
  EXPECT_EQ(job.stages.size(), static_cast<size_t>(c.job.pp));
  EXPECT_EQ(job.dpRanks.size(), static_cast<size_t>(c.job.dp));
  EXPECT_TRUE(job.model.reproduces)
      << analysis::modelCheckSentence(job.model) << "; " << job.model.largest;
  for (const analysis::PipelineResult& pl : a.result.pipelines) {
    EXPECT_TRUE(pl.model.reproduces)
        << "pipeline " << pl.dpRank << ": " << analysis::modelCheckSentence(pl.model) << "; "
        << pl.model.largest;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, MegatronJobs, ::testing::ValuesIn(jobCases()),
                         [](const auto& test) { return test.param.name; });

// A different replica last at the DP sync in each step: every replica's median tail holds a wait
// for the others, the least tail of each step does not. The job's S and its model hold.
TEST(MegatronJob, WhenADifferentReplicaIsLastEachStepTheTailIsTheLeastWaited) {
  MegatronJob j;
  j.pp = 2, j.dp = 8, j.m = 4, j.steps = 8;
  j.jitter = 0.02;
  j.slowReplica = 0, j.slowReplicaFactor = 1.4, j.slowReplicaRotates = true;
  const Analysed a = analyse(j);
  const analysis::JobResult& job = a.result.job;
  ASSERT_TRUE(job.present);
  EXPECT_NEAR(job.slowdown, a.truth.slowdown, 0.03 * a.truth.slowdown)
      << "measured " << job.stepTimeMeasured << " ideal " << job.stepTimeIdeal << " truth "
      << a.truth.measuredStep << " / " << a.truth.idealStep;
  EXPECT_TRUE(job.model.reproduces)
      << analysis::modelCheckSentence(job.model) << "; " << job.model.largest;
  // The tail's work: the DP collectives and the optimizer, without a wait for a slow replica.
  const TimeNs work = j.reduceScatter + j.clipGrad + j.optimizer + j.allGather;
  EXPECT_LT(job.tail, work + j.dataLoad + j.costB) << "tail " << job.tail;
}

TEST(MegatronJob, TheDpSyncWaitIsBlamedOnTheSlowReplica) {
  MegatronJob job;
  job.slowReplica = 1, job.slowReplicaFactor = 1.5;
  const Analysed a = analyse(job);
  const analysis::JobResult& r = a.result.job;
  ASSERT_FALSE(r.dpSync.empty());
  for (const auto& b : r.dpSync) EXPECT_EQ(b.dp, 1);
  // Replica 0 waits for replica 1's extra half of its pipeline at every stage's collective:
  // at least the slow replica's extra compute of the steady state.
  EXPECT_GT(r.dpWaitPerStep, job.pp * job.m * (job.costF + job.costB) / 4);
  EXPECT_EQ(r.dpSync.front().stepsLast, job.steps);
  // In the faster replica's own tables that wait is its own class, not a stall nothing in the
  // pipeline explains, and its drain gaps name the later replica.
  const analysis::PipelineResult* fast = nullptr;
  for (const auto& pl : a.result.pipelines) {
    if (pl.dpRank == 0) fast = &pl;
  }
  ASSERT_NE(fast, nullptr);
  const auto& idle = fast->total.idleByClass;
  const TimeNs dpSync = idle[static_cast<int>(analysis::IdleClass::DpSync)];
  EXPECT_GT(dpSync, r.dpWaitPerStep * static_cast<TimeNs>(fast->steps.size()) / 2);
  EXPECT_GT(dpSync, idle[static_cast<int>(analysis::IdleClass::OtherStall)] +
                        idle[static_cast<int>(analysis::IdleClass::HostStall)]);
  bool named = false;
  for (const analysis::Gap& g : fast->gaps) {
    if (g.dominant != analysis::IdleClass::DpSync) continue;
    EXPECT_EQ(g.blame.cause, analysis::IdleClass::DpSync) << g.blame.text;
    named = named || g.blame.text.find("at the DP sync for DP replica 1") != std::string::npos;
  }
  EXPECT_TRUE(named);
  // The slow replica waits for nobody.
  for (const auto& pl : a.result.pipelines) {
    if (pl.dpRank == 1) {
      EXPECT_EQ(pl.total.idleByClass[static_cast<int>(analysis::IdleClass::DpSync)], 0);
    }
  }
}

TEST(MegatronJob, ASlowTpRankIsNamedAndItsGroupSpansIt) {
  MegatronJob job;
  job.pp = 2, job.tp = 4, job.dp = 2;
  job.slowTpRank = MegatronJob::TpRank{0, 1, 2};
  job.slowTpFactor = 1.3;
  const Analysed a = analyse(job);
  const auto& groups = a.result.job.tpGroups;
  ASSERT_EQ(groups.size(), 4u);
  for (const auto& g : groups) {
    EXPECT_EQ(g.ranks.size(), 4u);
    EXPECT_EQ(g.ops, 2 * job.m * job.steps);
    if (g.dp == 0 && g.stage == 1) {
      EXPECT_EQ(g.slowRank, job.globalRank(0, 1, 2));
      EXPECT_GT(g.slowShare, 0.9);
      // It ends about 30% of an op later than the others.
      EXPECT_GT(g.meanSpread, job.costF * 3 / 10 - job.tpSkew);
    } else {
      EXPECT_EQ(g.slowRank, -1) << "DP " << g.dp << " stage " << g.stage;
      EXPECT_LE(g.maxSpread, job.tpSkew);
    }
  }
  // The stage's ops span the group: replica 0's stage 1 forward is the slow member's.
  const auto& stage = a.result.pipelines[0].stages[1];
  EXPECT_GT(stage.meanCost[0], job.costF * 12 / 10);
}

TEST(MegatronJob, TpGroupsWithoutTpRanksInMetadataAreFoldedAfterTheTopologyAlike) {
  // Traces that say DP and PP rank but no TP rank (other importers): the group is found by the
  // topology and folded after it, to the same spans and the same slow rank.
  MegatronJob job;
  job.pp = 2, job.tp = 2, job.dp = 2;
  job.slowTpRank = MegatronJob::TpRank{1, 0, 1};
  job.slowTpFactor = 1.3;
  Analysed a = analyse(job);
  for (auto& r : a.imported.run.ranks) r.meta.extra.erase("BUBBLESCOPE_TP_RANK");
  const analysis::AnalysisResult late = analysis::analyzeRun(a.imported.run);
  ASSERT_EQ(late.job.tpGroups.size(), a.result.job.tpGroups.size());
  for (size_t k = 0; k < late.job.tpGroups.size(); ++k) {
    const auto& x = late.job.tpGroups[k];
    const auto& y = a.result.job.tpGroups[k];
    EXPECT_EQ(std::pair(x.dp, x.stage), std::pair(y.dp, y.stage));
    EXPECT_EQ(x.ops, y.ops);
    EXPECT_EQ(x.meanSpread, y.meanSpread);
    EXPECT_EQ(x.slowRank, y.slowRank);
  }
  EXPECT_EQ(late.tp, 2);
  EXPECT_EQ(late.job.culprit, a.result.job.culprit);
  EXPECT_NEAR(late.job.slowdown, a.result.job.slowdown, 1e-9);
}

// `bubblescope analyze` gives its run up (analyzeRun(Run&&)): each labelled rank's ranges are
// freed once recognised, TP members' too, which must change nothing the analysis says.
TEST(MegatronJob, AnalysingARunGivenUpFreesItsRangesAndSaysTheSame) {
  MegatronJob job;
  job.pp = 2, job.tp = 2, job.dp = 2;
  job.slowTpRank = MegatronJob::TpRank{1, 0, 1};
  job.slowTpFactor = 1.3;
  Analysed a = analyse(job);
  // The overload keeps the run (it only frees what it has recognised), so it can be looked at.
  const analysis::AnalysisResult given = analysis::analyzeRun(std::move(a.imported.run));
  for (const auto& r : a.imported.run.ranks) EXPECT_EQ(r.ranges->size(), 0u) << r.meta.rank;
  EXPECT_EQ(analysis::jsonReportText(given, -1, analysis::JsonDetail::Full),
            analysis::jsonReportText(a.result, -1, analysis::JsonDetail::Full));
}

TEST(MegatronJob, ReportsLeadWithTheCulpritAndCarryTheThreeTables) {
  MegatronJob job;
  job.slowStage = 2, job.slowStageFactor = 1.5;
  const Analysed a = analyse(job);
  std::ostringstream text;
  analysis::writeTextReport(a.result, text, {});
  const std::string t = text.str();
  const size_t culprit = t.find("culprit:  stage 2: S_s = ");
  ASSERT_NE(culprit, std::string::npos) << t;
  EXPECT_LT(culprit, t.find("Pipeline 0:"));
  EXPECT_NE(t.find("DP replica 1"), std::string::npos);
  EXPECT_NE(t.find("backward-compute"), std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(
      analysis::jsonReportText(a.result, -1, analysis::JsonDetail::Summary))["job"];
  ASSERT_EQ(j["stages"].size(), 4u);
  EXPECT_GT(j["stages"][2]["slowdown"].get<double>(), 1.1);
  EXPECT_LT(j["stages"][0]["slowdown"].get<double>(), 1.03);
  EXPECT_EQ(j["dp_ranks"].size(), 2u);
  EXPECT_EQ(j["op_types"][0]["name"], "forward-compute");
  EXPECT_NEAR(j["slowdown"].get<double>(), a.result.job.slowdown, 1e-12);
  std::ostringstream md, html;
  analysis::writeMarkdownReport(a.result, md);
  analysis::writeHtmlReport(a.result, html);
  EXPECT_NE(md.str().find("**Culprit:** stage 2: S_s = "), std::string::npos) << md.str();
  EXPECT_NE(html.str().find("<strong>Culprit:</strong> stage 2: S_s = "), std::string::npos);
}

// A summary of a job of many replicas lists a few whole (the culprit's among them) and the others
// by their figures: the same figures, job section and `check` numbers as every one listed whole.
TEST(MegatronJob, ASummaryOfManyReplicasListsAFewWholeAndTheOthersByTheSameFigures) {
  MegatronJob job;
  job.pp = 2, job.dp = 20, job.m = 4, job.steps = 3;
  job.slowReplica = 13, job.slowReplicaFactor = 1.3;
  testing::TempDir dir;
  const auto file = dir.path() / "timeline.json";
  writeNdTimeline(executeMegatron(job), file, false);
  const auto imported = traces::import::importRun(traces::import::resolveInputs({file}));
  analysis::AnalyzeOptions options;
  options.everyGap = false;
  options.pipelinesListedWhole = 4;
  const analysis::AnalysisResult some = analysis::analyzeRun(imported.run, options);
  options.pipelinesListedWhole = 20;  // as many as there are: every one whole
  const analysis::AnalysisResult every = analysis::analyzeRun(imported.run, options);

  ASSERT_EQ(some.pipelines.size(), 20u);
  ASSERT_EQ(every.pipelines.size(), 20u);
  EXPECT_EQ(some.job.culprit, every.job.culprit);
  EXPECT_EQ(some.job.culpritDp, 13);
  int whole = 0;
  for (size_t d = 0; d < 20; ++d) {
    const analysis::PipelineResult& s = some.pipelines[d];
    const analysis::PipelineResult& e = every.pipelines[d];
    SCOPED_TRACE("pipeline " + std::to_string(e.dpRank));
    EXPECT_FALSE(e.summarised);
    EXPECT_EQ(s.dpRank, e.dpRank);
    EXPECT_EQ(s.slowdown, e.slowdown);
    EXPECT_EQ(s.stepTimeMeasured, e.stepTimeMeasured);
    EXPECT_EQ(s.stepTimeIdeal, e.stepTimeIdeal);
    EXPECT_EQ(s.total.idle, e.total.idle);
    EXPECT_EQ(s.total.idleByClass, e.total.idleByClass);
    EXPECT_EQ(s.culprit, e.culprit);
    ASSERT_EQ(s.stages.size(), e.stages.size());
    for (size_t st = 0; st < s.stages.size(); ++st) {
      EXPECT_EQ(s.stages[st].slowdown, e.stages[st].slowdown);
    }
    if (s.summarised) {
      EXPECT_TRUE(s.gaps.empty() && s.rootCauses.empty() && s.whatIf.empty());
      continue;
    }
    ++whole;
    EXPECT_EQ(s.gaps.size(), e.gaps.size());
    EXPECT_EQ(s.rootCauses.size(), e.rootCauses.size());
    EXPECT_EQ(s.whatIf.size(), e.whatIf.size());
  }
  EXPECT_EQ(whole, 4);
  EXPECT_FALSE(some.pipelines[13].summarised) << "the culprit's replica is listed whole";

  // Reports: the whole ones as before, the others a line each; `check` reads the same figures.
  std::ostringstream text, md, junit;
  analysis::writeTextReport(some, text, {});
  analysis::writeMarkdownReport(some, md);
  analysis::writeJunitReport(some, junit);
  const std::string t = text.str();
  EXPECT_NE(t.find("Pipeline 13: schedule"), std::string::npos);
  const size_t others = t.find("The other 16 of the 20 pipelines, by their figures");
  ASSERT_NE(others, std::string::npos) << t;
  for (const analysis::PipelineResult& pl : some.pipelines) {
    const std::string title = "Pipeline " + std::to_string(pl.dpRank) + ": schedule";
    EXPECT_EQ(t.find(title) != std::string::npos, !pl.summarised) << title;
    if (pl.summarised) {
      EXPECT_NE(t.find("\n  " + std::to_string(pl.dpRank) + " ", others), std::string::npos);
    }
  }
  EXPECT_NE(md.str().find("### The other 16 of the 20 pipelines"), std::string::npos);
  EXPECT_NE(junit.str().find("its root causes, what-ifs and bubble inventory are listed with"),
            std::string::npos);
  const auto json = [](const analysis::AnalysisResult& r) {
    return nlohmann::json::parse(analysis::jsonReportText(r, -1, analysis::JsonDetail::Summary));
  };
  const nlohmann::json j = json(some);
  size_t first = 0;
  while (!some.pipelines[first].summarised) ++first;
  EXPECT_EQ(j["pipelines"][first]["summarised"], true);
  EXPECT_FALSE(j["pipelines"][first].contains("root_causes"));
  EXPECT_EQ(j["pipelines"][13]["summarised"], false);
  EXPECT_TRUE(j["pipelines"][13].contains("root_causes"));
  const analysis::ReportFigures a = analysis::figuresFromJson(j, "some.json");
  const analysis::ReportFigures b = analysis::figuresFromJson(json(every), "every.json");
  ASSERT_EQ(a.pipelines.size(), b.pipelines.size());
  for (size_t d = 0; d < a.pipelines.size(); ++d) {
    EXPECT_EQ(a.pipelines[d].dpRank, b.pipelines[d].dpRank);
    EXPECT_EQ(a.pipelines[d].slowdown, b.pipelines[d].slowdown);
    EXPECT_EQ(a.pipelines[d].stepTime, b.pipelines[d].stepTime);
    EXPECT_EQ(a.pipelines[d].idle, b.pipelines[d].idle);
    EXPECT_EQ(a.pipelines[d].stageSlowdown, b.pipelines[d].stageSlowdown);
  }
}

}  // namespace
}  // namespace bubblescope::tracegen
