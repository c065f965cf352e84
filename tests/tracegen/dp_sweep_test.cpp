// PyTorch pipelines of several DP replicas (torch.distributed.pipelining beside data parallelism),
// as the profiler (Kineto) and Nsight Systems record them: a slow stage (in every replica), a slow
// replica (every stage of it), a stalling host and a slow link (in one replica) placed on each
// stage and replica in turn, on 1F1B, interleaved 1F1B and ZB-V, with the shape, the ranks' layout
// (a replica's stages adjacent, or PP outermost), the strength, jitter and clock skews drawn from
// a printed seed. The job's culprit names where the fault is (a stall, where it adds 5% to the
// truth's S), S is the truth's, the job's and every pipeline's model reproduces the job, and every
// gap of every pipeline keeps the gap invariants; with no fault the job finds no straggler.
// BUBBLESCOPE_SWEEP_SEED=N replays a seed; BUBBLESCOPE_SWEEP_KEEP=DIR keeps the traces.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/temp_dir.h"
#include "tests/tracegen/job_sweep_checks.h"
#include "tests/tracegen/stack_analysis.h"
#include "tests/tracegen/sweep_seed.h"
#include "tests/tracegen/truth.h"

namespace bubblescope::tracegen {
namespace {

constexpr uint64_t kDefaultSeed = 26;  // the suite's: fixed, so a run is the same run after run

enum class Fault { None, Stage, Replica, HostStall, SlowLink };

struct Slot {
  std::string name;
  Stack stack = Stack::Kineto;
  JobSchedule schedule = JobSchedule::OneF1B;
  Fault fault = Fault::None;
  int where = 0;  // the slow stage or replica
};

void PrintTo(const Slot& s, std::ostream* os) {
  *os << s.name;
}

constexpr int kStages = 4, kReplicas = 3;
// What a stall adds to the truth's S, against the same job without it, below which the schedule's
// slack absorbed it and it need not be named (the fault sweep's kFaultShows is 3% of one pipeline;
// here the other replicas' own stalls, as unfused posts queue, stand beside it).
constexpr double kStallShows = 0.05;

// The truth's S of the job without its stall.
double slowdownWithoutStall(JobSpec spec) {
  spec.lateLaunches.clear();
  spec.slowLinks.clear();
  return truthOf(execute(spec)).slowdown;
}

std::vector<Slot> slots() {
  std::vector<Slot> out;
  const std::pair<Stack, const char*> stacks[] = {{Stack::Kineto, "Kineto"}, {Stack::Nsys, "Nsys"}};
  const std::pair<JobSchedule, const char*> schedules[] = {
      {JobSchedule::OneF1B, "OneF1B"},
      {JobSchedule::Interleaved, "Interleaved"},
      {JobSchedule::ZbV, "ZbV"}};
  for (const auto& [stack, stackName] : stacks) {
    for (const auto& [schedule, scheduleName] : schedules) {
      const std::string prefix = std::string(stackName) + "_" + scheduleName + "_";
      out.push_back({prefix + "FaultFree", stack, schedule, Fault::None, 0});
      for (int s = 0; s < kStages; ++s) {
        out.push_back({prefix + "SlowStage" + std::to_string(s), stack, schedule, Fault::Stage, s});
      }
      for (int d = 0; d < kReplicas; ++d) {
        out.push_back(
            {prefix + "SlowReplica" + std::to_string(d), stack, schedule, Fault::Replica, d});
      }
      for (int d = 0; d < kReplicas; ++d) {
        out.push_back(
            {prefix + "HostStall" + std::to_string(d), stack, schedule, Fault::HostStall, d});
        out.push_back(
            {prefix + "SlowLink" + std::to_string(d), stack, schedule, Fault::SlowLink, d});
      }
    }
  }
  return out;
}

// The slot's job at the seed: the same (seed, slot) gives the same job on every machine.
JobSpec jobOf(const Slot& slot, uint64_t seed, std::string& drawn) {
  SlotDraw draw(seed, slot.name);
  JobSpec s;
  s.p = kStages;
  s.dp =
      slot.fault == Fault::Stage || slot.fault == Fault::None ? draw.pick(2, kReplicas) : kReplicas;
  s.schedule = slot.schedule;
  s.m = slot.schedule == JobSchedule::OneF1B ? draw.pick(4, 12) : s.p * draw.pick(1, 3);
  s.steps = 4;
  s.jitter = draw.between(0.0, 0.03);
  s.seed = draw.next();
  s.fuseP2p = slot.schedule == JobSchedule::OneF1B && draw.pick(0, 1) == 1;
  s.stageMajor = draw.pick(0, 1) == 1;
  for (int r = 0; r < worldSize(s); ++r) s.clockSkew.push_back(draw.pick(-100, 100) * 10'000);
  if (slot.fault == Fault::Stage) s.slowStage = slot.where;
  if (slot.fault == Fault::Replica) s.slowReplica = slot.where;
  if (slot.fault == Fault::Stage || slot.fault == Fault::Replica)
    s.slowFactor = draw.between(1.3, 1.8);
  if (slot.fault == Fault::HostStall) {
    for (int k = 0; k < s.steps; ++k) {
      LateLaunch late;
      late.op = OpId{2, k, PassKind::F, draw.pick(0, s.m - 1), 0};
      late.delay = draw.pick(8, 16) * 1'000'000;
      late.replica = slot.where;
      s.lateLaunches.push_back(late);
    }
  }
  if (slot.fault == Fault::SlowLink) {
    s.slowLinks.push_back({rankOf(s, slot.where, 1), rankOf(s, slot.where, 2), 1'500'000});
  }
  char line[200];
  std::snprintf(line, sizeof line,
                "seed %llu: PP%d x DP%d (%s), m %d, %s p2p, jitter %.3f, factor %.3f",
                static_cast<unsigned long long>(seed), s.p, s.dp,
                s.stageMajor ? "rank = stage * dp + replica" : "rank = replica * p + stage", s.m,
                s.fuseP2p ? "fused" : "unfused", s.jitter, s.slowFactor);
  drawn = line;
  return s;
}

// The job's culprit a placement expects, and what it quotes of the faulty replica's pipeline.
struct Expected {
  ExpectedCulprit job;
  std::string pipeline = {};
};

Expected expectedOf(const Slot& slot) {
  const std::string replica = "DP replica " + std::to_string(slot.where);
  switch (slot.fault) {
    case Fault::None:
      return {{"no straggler"}};
    case Fault::Stage:
      return {{"stage " + std::to_string(slot.where) + ": S_s = ", slot.where, -1}};
    case Fault::Replica:
      return {{replica + ", every stage: S_d = ", -1, slot.where}};
    case Fault::HostStall:
      return {{replica + ": stalls, not op costs: ", -1, slot.where}, "stall: host on stage 2"};
    case Fault::SlowLink:
      return {{replica + ": stalls, not op costs: ", -1, slot.where},
              "stall: comm on the link stage "};
  }
  return {};
}

class DpSweep : public ::testing::TestWithParam<Slot> {};

TEST_P(DpSweep, TheCulpritIsWhereTheFaultIs) {
  const Slot& slot = GetParam();
  std::string drawn;
  const JobSpec spec = jobOf(slot, sweepSeed(kDefaultSeed), drawn);
  std::printf("[ sweep    ] %s: %s\n", slot.name.c_str(), drawn.c_str());
  testing::TempDir dir;
  const StackRun run = analyseAs(slot.stack, spec, dir.path());
  keepIfAsked(dir.path(), slot.name);
  const analysis::AnalysisResult& result = run.result;
  const analysis::JobResult& jr = result.job;
  ASSERT_TRUE(jr.present) << drawn;
  std::printf("[ sweep    ] S %.4f, truth %.4f; culprit: %s\n", jr.slowdown, run.truth.slowdown,
              jr.culprit.c_str());
  EXPECT_EQ(result.pp, spec.p) << drawn;
  EXPECT_EQ(result.dp, spec.dp) << drawn;
  ASSERT_EQ(result.pipelines.size(), static_cast<size_t>(spec.dp)) << drawn;
  const Expected want = expectedOf(slot);
  // A stall the schedule's slack absorbs barely slows the job: below this it need not be named.
  const bool stall = slot.fault == Fault::HostStall || slot.fault == Fault::SlowLink;
  const double stallCost = stall ? run.truth.slowdown - slowdownWithoutStall(spec) : 0;
  if (stall) std::printf("[ sweep    ] the stall adds %.4f to the truth's S\n", stallCost);
  if (!stall || stallCost >= kStallShows) {
    expectJobCulprit(jr, want.job, drawn);
    if (!want.pipeline.empty()) {
      EXPECT_NE(jr.culprit.find("; its pipeline: " + want.pipeline), std::string::npos)
          << drawn << "\nculprit: " << jr.culprit << "\nwant it to quote: " << want.pipeline;
    }
  }
  expectJobSlowdown(jr, run.truth.slowdown, run.truth.measuredStep, run.truth.idealStep, 0.02,
                    drawn);
  expectModelsReproduceAndGapsHold(result, drawn);
}

INSTANTIATE_TEST_SUITE_P(Placements, DpSweep, ::testing::ValuesIn(slots()),
                         [](const auto& test) { return test.param.name; });

}  // namespace
}  // namespace bubblescope::tracegen
