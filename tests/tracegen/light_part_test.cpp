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
#include "tests/tracegen/pp_job.h"
#include "tests/tracegen/stack_analysis.h"
#include "tests/tracegen/sweep_seed.h"
#include "traces/import/run_import.h"

namespace bubblescope::tracegen {
namespace {

using analysis::CommKernel;
using analysis::CommMatches;
using analysis::RankOps;

constexpr uint64_t kDefaultSeed = 26;  // the sweeps' default: the same run, run after run

enum class Fault { None, SlowLink, SlowReplica };

struct Case {
  std::string name;
  Stack stack;
  JobSchedule schedule;
  Fault fault;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  const std::pair<Stack, const char*> stacks[] = {{Stack::Kineto, "Kineto"}, {Stack::Nsys, "Nsys"}};
  const std::pair<JobSchedule, const char*> schedules[] = {
      {JobSchedule::OneF1B, "1F1B"},
      {JobSchedule::Interleaved, "Interleaved"},
      {JobSchedule::ZbV, "ZbV"}};
  const std::pair<Fault, const char*> faults[] = {{Fault::None, "FaultFree"},
                                                  {Fault::SlowLink, "SlowLink"},
                                                  {Fault::SlowReplica, "SlowReplica"}};
  for (const auto& [stack, stackName] : stacks) {
    for (const auto& [schedule, scheduleName] : schedules) {
      for (const auto& [fault, faultName] : faults) {
        out.push_back({std::string(stackName) + "_" + scheduleName + "_" + faultName, stack,
                       schedule, fault});
      }
    }
  }
  return out;
}

// The case's job at the seed (sweep_seed.h: BUBBLESCOPE_SWEEP_SEED), printed: every rank's clock
// its own, so that the offsets the light parts give are tested; the fault on a drawn replica and
// link.
JobSpec jobOf(const Case& c, uint64_t seed) {
  SlotDraw draw(seed, c.name);
  JobSpec s;
  s.p = 4;
  s.dp = draw.pick(2, 3);
  s.schedule = c.schedule;
  s.m = c.schedule == JobSchedule::OneF1B ? draw.pick(4, 8) : s.p * draw.pick(1, 2);
  s.steps = 3;
  s.fuseP2p = c.schedule == JobSchedule::OneF1B && draw.pick(0, 1) == 1;
  s.stageMajor = draw.pick(0, 1) == 1;
  s.jitter = draw.between(0.0, 0.03);
  s.seed = draw.next();
  for (int r = 0; r < worldSize(s); ++r) s.clockSkew.push_back(draw.pick(-100, 100) * 10'000);
  const int replica = draw.pick(0, s.dp - 1);
  const int from = draw.pick(0, s.p - 2);
  if (c.fault == Fault::SlowLink) {
    s.slowLinks.push_back({rankOf(s, replica, from), rankOf(s, replica, from + 1), 1'500'000});
  }
  if (c.fault == Fault::SlowReplica) {
    s.slowReplica = replica;
    s.slowFactor = draw.between(1.3, 1.8);
  }
  std::printf(
      "[ sweep    ] %s: seed %llu: PP%d x DP%d (%s), m %d, %s p2p, replica %d, link %d -> %d\n",
      c.name.c_str(), static_cast<unsigned long long>(seed), s.p, s.dp,
      s.stageMajor ? "rank = stage * dp + replica" : "rank = replica * p + stage", s.m,
      s.fuseP2p ? "fused" : "unfused", replica, from, from + 1);
  return s;
}

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
