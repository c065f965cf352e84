// A DP replica built by its owner from its package (replica_package.h: made from the job's comms
// matched on the ranks' NCCL kernels alone) and its ranks' whole recognised ops is the
// pipeline one process builds of the whole job, and analyses to the same result, with the same
// waits at the DP sync from the arrivals each owner sends: on the jobs of replica_jobs.h (Kineto
// and nsys; 1F1B, interleaved, ZB-V; fault-free, slow link, slow replica; skewed clocks, fused and
// unfused posts, both rank orders, drawn at a seed and printed). `analyze` under MPI builds each
// replica where its ranks are this way (docs/mpi.md, "Next").
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/analyze.h"
#include "analyzer/comm/comm_match.h"
#include "analyzer/pipeline/clock_align.h"
#include "analyzer/pipeline/pipeline_trace.h"
#include "analyzer/pipeline/topology.h"
#include "analyzer/pipeline_analysis.h"
#include "analyzer/recognize/rank_ops_codec.h"
#include "analyzer/replicas/dp_waits.h"
#include "analyzer/replicas/replica_package.h"
#include "analyzer/report/json_report.h"
#include "tests/support/temp_dir.h"
#include "tests/tracegen/replica_jobs.h"
#include "traces/import/run_import.h"

namespace bubblescope::tracegen {
namespace {

using analysis::CommMatches;
using analysis::PipelineTrace;
using analysis::RankOps;
using replica_jobs::Case;

// The comms matched, the clocks aligned and the kernels split as the analysis does (analyze.cpp,
// alignAndSplitComms), and the options the pipelines are built with, the warm-up step left out.
struct Matched {
  CommMatches comms;
  analysis::PipelineOptions options;
};

// `steps[r]`: the step numbers rank r's ops ran in (stepsWithOps), as each rank's holder sends
// them.
Matched match(const traces::Run& run, std::vector<RankOps>& ops,
              const std::vector<std::vector<int64_t>>& steps) {
  Matched m;
  m.comms = analysis::matchComms(run, ops);
  m.options.appliedOffsets = analysis::clockOffsetsFromComms(m.comms, ops);
  for (size_t r = 0; r < m.options.appliedOffsets.size(); ++r) {
    analysis::shiftTimes(ops[r], m.options.appliedOffsets[r]);
  }
  analysis::splitCommKernels(m.comms, ops);
  if (const auto warmup = analysis::warmupStep(steps, INT64_MIN, INT64_MAX)) {
    m.options.firstStep = *warmup + 1;
  }
  return m;
}

// A rank's ops as bytes, but for its ops and transfers (the padding in each, which no one writes,
// and which a copy need not keep).
std::string bytesBesidesRecords(RankOps ops) {
  ops.ops.clear();
  ops.comms.clear();
  std::string out;
  traces::ByteWriter w(out);
  analysis::encodeRankOps(ops, w);
  return out;
}

void expectSameOps(const RankOps& one, const RankOps& owned, size_t stage) {
  EXPECT_TRUE(bytesBesidesRecords(owned) == bytesBesidesRecords(one))
      << "stage " << stage << ": its ops differ";
  ASSERT_EQ(owned.ops.size(), one.ops.size()) << "stage " << stage;
  for (size_t i = 0; i < one.ops.size(); ++i) {
    const analysis::RecognizedOp& a = one.ops[i];
    const analysis::RecognizedOp& b = owned.ops[i];
    EXPECT_TRUE(a.op == b.op && a.step == b.step && a.start == b.start && a.end == b.end &&
                one.hostOf(i) == owned.hostOf(i))
        << "stage " << stage << ", op " << i;
  }
  ASSERT_EQ(owned.comms.size(), one.comms.size()) << "stage " << stage;
  for (size_t i = 0; i < one.comms.size(); ++i) {
    const analysis::RecognizedComm& a = one.comms[i];
    const analysis::RecognizedComm& b = owned.comms[i];
    EXPECT_TRUE(a.send == b.send && a.pass == b.pass && a.onDevice == b.onDevice && a.mb == b.mb &&
                a.chunk == b.chunk && a.peer == b.peer && a.start == b.start && a.end == b.end &&
                a.thread == b.thread && a.step == b.step && one.launchOf(i) == owned.launchOf(i))
        << "stage " << stage << ", transfer " << i;
  }
}

// A replica's analysis as the JSON report says it whole (every op, gap and transfer).
std::string reportOf(const analysis::PipelineResult& r) {
  analysis::AnalysisResult whole;
  whole.pipelines.push_back(r);
  return analysis::jsonReportText(whole, 1, analysis::JsonDetail::Full);
}

void expectSamePipeline(const PipelineTrace& one, const PipelineTrace& owned) {
  EXPECT_EQ(owned.dpRank, one.dpRank);
  EXPECT_EQ(owned.p, one.p);
  EXPECT_EQ(owned.v, one.v);
  EXPECT_EQ(owned.vLayout, one.vLayout);
  EXPECT_EQ(owned.stepNumbers, one.stepNumbers);
  EXPECT_EQ(owned.stepIndex, one.stepIndex);
  EXPECT_EQ(owned.warnings, one.warnings);
  ASSERT_EQ(owned.stages.size(), one.stages.size());
  for (size_t s = 0; s < one.stages.size(); ++s) {
    EXPECT_EQ(owned.stages[s].ranks, one.stages[s].ranks) << "stage " << s;
    EXPECT_EQ(owned.stages[s].clockOffset, one.stages[s].clockOffset) << "stage " << s;
    expectSameOps(one.stages[s].ops, owned.stages[s].ops, s);
  }
  ASSERT_EQ(owned.transferCount(), one.transferCount());
  for (size_t t = 0; t < one.transferCount(); ++t) {
    const analysis::Transfer a = one.transfer(t);
    const analysis::Transfer b = owned.transfer(t);
    EXPECT_TRUE(a.fromStage == b.fromStage && a.toStage == b.toStage && a.send == b.send &&
                a.recv == b.recv)
        << "transfer " << t;
  }
}

// What matching the comms reads of a rank's ops: its NCCL kernels and their calls.
RankOps commsOf(const RankOps& ops) {
  RankOps out;
  out.commKernels = ops.commKernels;
  out.commCalls = ops.commCalls;
  return out;
}

class ReplicaPackage : public ::testing::TestWithParam<Case> {};

TEST_P(ReplicaPackage, BuildsAndAnalysesTheReplicaOneProcessBuilds) {
  const Case& c = GetParam();
  const JobSpec spec = replica_jobs::jobOf(c, sweepSeed(replica_jobs::kDefaultSeed));
  testing::TempDir dir;
  analyseAs(c.stack, spec, dir.path());
  keepIfAsked(dir.path(), c.name);
  traces::Run run = traces::import::importRun(traces::import::resolveInputs({dir.path()})).run;
  const analysis::RuleSets rules({});
  // One process: every rank whole. The owners: every rank recognised again where it is, and its
  // light part where the comms are matched.
  std::vector<RankOps> whole, held, light;
  std::vector<std::vector<int64_t>> steps;
  for (traces::RankTrace& t : run.ranks) {
    whole.push_back(analysis::recognizeForAnalysis(t, rules.all));
    steps.push_back(analysis::stepsWithOps(whole.back()));
    held.push_back(analysis::recognizeForAnalysis(t, rules.all));
    light.push_back(commsOf(held.back()));
    analysis::keepForAnalysis(t);
  }
  const analysis::Topology topo = analysis::buildTopology(run, whole);
  ASSERT_EQ(topo.dp, spec.dp);
  Matched one = match(run, whole, steps);
  ASSERT_GT(one.options.firstStep, INT64_MIN) << "no warm-up step left out";
  one.options.comms = &one.comms;
  Matched fromLight = match(run, light, steps);
  fromLight.options.comms = &fromLight.comms;
  ASSERT_FALSE(one.options.appliedOffsets.empty())
      << "no clocks aligned: the offsets prove nothing";

  std::vector<PipelineTrace> single, owned;
  for (size_t d = 0; d < topo.ranksOf.size(); ++d) {
    single.push_back(analysis::buildPipeline(topo, d, whole, one.options));
    const analysis::ReplicaPackage made =
        analysis::packageReplica(topo, d, fromLight.comms, light, fromLight.options);
    std::string bytes;
    traces::ByteWriter w(bytes);
    analysis::encodeReplicaPackage(made, w);
    traces::ByteReader r(bytes);
    const analysis::ReplicaPackage sent = analysis::decodeReplicaPackage(r);
    EXPECT_TRUE(r.done());
    EXPECT_FALSE(made.p2p.empty()) << "no matched transfer to take the stages' comms from";
    traces::ByteReader cut(std::string_view(bytes).substr(0, bytes.size() - 1));
    EXPECT_THROW(analysis::decodeReplicaPackage(cut), std::runtime_error);
    owned.push_back(analysis::buildOwnedReplica(sent, held));
    SCOPED_TRACE("replica " + std::to_string(d));
    expectSamePipeline(single.back(), owned.back());
  }
  // The DP sync's waits: from the pipelines in one process, from each owner's arrivals elsewhere.
  std::vector<const PipelineTrace*> all;
  std::vector<analysis::ReplicaArrivals> arrivals;
  for (size_t d = 0; d < single.size(); ++d) {
    all.push_back(&single[d]);
    arrivals.push_back(analysis::arrivalsOf(owned[d]));
  }
  const std::vector<analysis::DpWaits> waits = analysis::dpWaitsOf(all);
  const std::vector<analysis::DpWaits> ownedWaits = analysis::dpWaitsFrom(arrivals);
  ASSERT_EQ(ownedWaits.size(), waits.size());
  for (size_t d = 0; d < single.size(); ++d) {
    SCOPED_TRACE("replica " + std::to_string(d));
    std::vector<std::string> saidOne, saidOwned;
    const analysis::PipelineResult a = analysis::analyzePipeline(single[d], saidOne, &waits[d]);
    const analysis::PipelineResult b =
        analysis::analyzePipeline(owned[d], saidOwned, &ownedWaits[d]);
    EXPECT_EQ(saidOwned, saidOne);
    EXPECT_FALSE(a.gaps.empty());
    EXPECT_TRUE(reportOf(b) == reportOf(a)) << "the owner's analysis of the replica differs";
  }
}

INSTANTIATE_TEST_SUITE_P(Jobs, ReplicaPackage, ::testing::ValuesIn(replica_jobs::cases()),
                         [](const auto& test) { return test.param.name; });

}  // namespace
}  // namespace bubblescope::tracegen
