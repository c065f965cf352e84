// What the job-wide steps read of a recognised rank is its light part (analyze.h, lightPartOf:
// rule set, step markers, NCCL kernels and their calls; with its place and its steps with ops).
// Matching the comms across ranks, aligning the clocks by them, splitting each NCCL kernel into
// waiting and transfer, the topology and the warm-up step come out of the light parts exactly as
// out of the whole ranks, on torch pipelines of several replicas written as Kineto and nsys write
// them (1F1B, interleaved and ZB-V; fault-free, a slow link, a slow replica; clock skew on every
// rank, fused and unfused posts, both rank orders, drawn at a seed and printed). So one process can
// make them for ranks whose ops other processes hold (`analyze` under MPI, docs/mpi.md, "Next").
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "analyzer/analyze.h"
#include "analyzer/comm/comm_match.h"
#include "analyzer/comm/comm_warnings.h"
#include "analyzer/pipeline/clock_align.h"
#include "analyzer/pipeline/pipeline_trace.h"
#include "analyzer/pipeline/topology.h"
#include "tests/support/temp_dir.h"
#include "tests/tracegen/replica_jobs.h"
#include "traces/import/run_import.h"

namespace bubblescope::tracegen {
namespace {

using analysis::CommKernel;
using analysis::CommMatches;
using analysis::RankOps;

using replica_jobs::Case;
using replica_jobs::cases;
using replica_jobs::jobOf;
using replica_jobs::kDefaultSeed;

// The comms matched, the clocks aligned and the NCCL kernels split, as the analysis does them
// (analyze.cpp, alignAndSplitComms).
struct Aligned {
  CommMatches comms;
  std::vector<TimeNs> offsets;
};

Aligned align(const traces::Run& run, std::vector<RankOps>& ops) {
  Aligned a;
  a.comms = analysis::matchComms(run, ops);
  a.offsets = analysis::clockOffsetsFromComms(a.comms, ops);
  for (size_t r = 0; r < a.offsets.size(); ++r) analysis::shiftTimes(ops[r], a.offsets[r]);
  analysis::splitCommKernels(a.comms, ops);
  return a;
}

void expectSameKernels(const std::vector<CommKernel>& whole, const std::vector<CommKernel>& light,
                       size_t rank) {
  ASSERT_EQ(light.size(), whole.size()) << "rank " << rank;
  for (size_t k = 0; k < whole.size(); ++k) {
    const CommKernel& w = whole[k];
    const CommKernel& l = light[k];
    EXPECT_TRUE(w.start == l.start && w.end == l.end && w.launch == l.launch && w.step == l.step &&
                w.transferStart == l.transferStart && w.callBegin == l.callBegin &&
                w.callEnd == l.callEnd && w.matched == l.matched && w.kernel == l.kernel &&
                w.members.traced == l.members.traced && w.members.of == l.members.of)
        << "rank " << rank << ", NCCL kernel " << k;
  }
}

class LightPart : public ::testing::TestWithParam<Case> {};

TEST_P(LightPart, GivesTheJobWideStepsOfTheWholeRanks) {
  const Case& c = GetParam();
  const JobSpec spec = jobOf(c, sweepSeed(kDefaultSeed));
  testing::TempDir dir;
  analyseAs(c.stack, spec, dir.path());
  keepIfAsked(dir.path(), c.name);
  traces::Run run = traces::import::importRun(traces::import::resolveInputs({dir.path()})).run;
  ASSERT_EQ(run.ranks.size(), static_cast<size_t>(worldSize(spec)));
  const analysis::RuleSets rules({});
  std::vector<RankOps> whole;
  std::vector<RankOps> light;
  std::vector<analysis::RankPlace> places;
  std::vector<std::vector<int64_t>> steps;
  size_t wholeBytes = 0, lightBytes = 0;
  for (traces::RankTrace& t : run.ranks) {
    whole.push_back(analysis::recognizeForAnalysis(t, rules.all));
    analysis::keepForAnalysis(t);
    light.push_back(analysis::lightPartOf(whole.back()));
    places.push_back(analysis::placeOf(whole.back()));
    steps.push_back(analysis::stepsWithOps(whole.back()));
    const RankOps& w = whole.back();
    wholeBytes += w.ops.size() * sizeof w.ops[0] + w.computeKernels.size() * 16 +
                  w.otherKernels.size() * sizeof(analysis::DeviceWork) +
                  w.hostActivity.size() * 16 + w.commKernels.size() * sizeof(CommKernel) +
                  w.commCalls.size() * 4 + w.kernelsForMemory.size() * 16;
    lightBytes += light.back().commKernels.size() * sizeof(CommKernel) +
                  light.back().commCalls.size() * 4 + light.back().steps.size() * 24;
  }
  std::printf("[ light    ] %s: %zu of %zu bytes of recognised ranks\n", c.name.c_str(), lightBytes,
              wholeBytes);

  const analysis::Topology fromWhole = analysis::buildTopology(run, whole);
  const analysis::Topology fromPlaces = analysis::buildTopology(run, places);
  EXPECT_EQ(fromPlaces.ranksOf, fromWhole.ranksOf);
  EXPECT_EQ(fromPlaces.dpRanks, fromWhole.dpRanks);
  EXPECT_EQ(fromPlaces.source, fromWhole.source);
  EXPECT_EQ(fromPlaces.warnings, fromWhole.warnings);
  EXPECT_EQ(fromWhole.dp, spec.dp);
  EXPECT_EQ(analysis::warmupStep(steps, INT64_MIN, INT64_MAX),
            analysis::warmupStep(whole, INT64_MIN, INT64_MAX));
  ASSERT_TRUE(analysis::warmupStep(whole, INT64_MIN, INT64_MAX).has_value());

  const Aligned w = align(run, whole);
  const Aligned l = align(run, light);
  EXPECT_EQ(l.offsets, w.offsets);
  EXPECT_TRUE(std::any_of(w.offsets.begin(), w.offsets.end(), [](TimeNs o) { return o != 0; }))
      << "the skews were not seen: the offsets prove nothing";
  ASSERT_FALSE(w.comms.p2p.empty());
  ASSERT_FALSE(w.comms.collectives.empty());  // the DP all-reduce across replicas
  ASSERT_EQ(l.comms.p2p.size(), w.comms.p2p.size());
  for (size_t i = 0; i < w.comms.p2p.size(); ++i) {
    const auto& a = w.comms.p2p[i];
    const auto& b = l.comms.p2p[i];
    EXPECT_TRUE(a.sendKernel == b.sendKernel && a.recvKernel == b.recvKernel &&
                a.sendCall == b.sendCall && a.recvCall == b.recvCall &&
                a.sendPosted == b.sendPosted && a.recvPosted == b.recvPosted &&
                a.byPostingOrder == b.byPostingOrder)
        << "p2p match " << i;
  }
  EXPECT_EQ(l.comms.collectives, w.comms.collectives);
  EXPECT_EQ(l.comms.collective, w.comms.collective);
  EXPECT_EQ(analysis::commWarnings(l.comms), analysis::commWarnings(w.comms));
  for (size_t r = 0; r < whole.size(); ++r) {
    expectSameKernels(whole[r].commKernels, light[r].commKernels, r);
    ASSERT_EQ(light[r].steps.size(), whole[r].steps.size());
    for (size_t k = 0; k < whole[r].steps.size(); ++k) {
      EXPECT_EQ(light[r].steps[k].start, whole[r].steps[k].start) << "rank " << r << " step " << k;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Jobs, LightPart, ::testing::ValuesIn(cases()),
                         [](const auto& test) { return test.param.name; });

}  // namespace
}  // namespace bubblescope::tracegen
