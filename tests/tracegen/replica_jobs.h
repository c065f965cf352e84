#pragma once
// The PP x DP jobs the distributed-analysis tests draw (owned_analysis_test, replica_package_test):
// torch pipelines of 2-3 replicas written as Kineto and nsys write them, 1F1B, interleaved and
// ZB-V, fault-free, a slow link and a slow replica on a drawn replica and link, every rank's
// clock its own, fused and unfused posts, both rank orders; drawn at a seed and printed.
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "tests/tracegen/pp_job.h"
#include "tests/tracegen/stack_analysis.h"
#include "tests/tracegen/sweep_seed.h"

namespace bubblescope::tracegen::replica_jobs {

constexpr uint64_t kDefaultSeed = 26;  // the sweeps' default: the same run, run after run

enum class Fault { None, SlowLink, SlowReplica };

struct Case {
  std::string name;
  Stack stack;
  JobSchedule schedule;
  Fault fault;
};

inline std::vector<Case> cases() {
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
inline JobSpec jobOf(const Case& c, uint64_t seed) {
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

}  // namespace bubblescope::tracegen::replica_jobs
