#include "tests/tracegen/cases.h"

namespace bubblescope::tracegen {
namespace {

using analysis::IdleClass;

// Clocks as far apart as NTP leaves hosts (hundreds of µs), and the torch profiler's step range
// opening a few µs into the step's first op.
JobSpec realistic() {
  JobSpec s;
  s.clockSkew = {0, 430'000, -270'000, 910'000};
  s.stepRangeLag = 6'000;
  return s;
}

}  // namespace

std::vector<Case> standardCases() {
  std::vector<Case> cases;
  cases.push_back({"FaultFree", realistic(), std::nullopt, -1, {}});

  Case slow{"SlowStage", realistic(), IdleClass::Imbalance, 2, {"on stage 2"}};
  slow.spec.slowStage = 2;
  slow.spec.slowFactor = 1.3;
  cases.push_back(slow);

  Case host{"HostStall", realistic(), IdleClass::HostStall, 0, {"host launched F1 on stage 0"}};
  host.spec.lateLaunches.push_back({OpId{0, 1, PassKind::F, 1}, 12'000'000});
  cases.push_back(host);

  // A fused send/receive kernel ends when both directions are done: either may show the link.
  Case link{"CommDelay",
            realistic(),
            IdleClass::CommStall,
            -1,
            {"link stage 1 -> stage 2", "link stage 2 -> stage 1"}};
  link.spec.slowLinks.push_back({1, 2, 1'500'000});
  cases.push_back(link);

  Case jitter{"Jitter", realistic(), IdleClass::Jitter, -1, {}};
  jitter.spec.jitter = 0.25;
  jitter.spec.seed = 7;
  cases.push_back(jitter);

  Case mix{"Mix", realistic(), IdleClass::Imbalance, 2, {}};
  mix.spec.slowStage = 2;
  mix.spec.slowFactor = 1.3;
  mix.spec.jitter = 0.05;
  mix.spec.lateLaunches.push_back({OpId{0, 2, PassKind::F, 0}, 6'000'000});
  mix.spec.slowLinks.push_back({0, 1, 400'000});
  cases.push_back(mix);
  return cases;
}

std::vector<Case> zbVCases() {
  std::vector<Case> cases = standardCases();
  for (Case& c : cases) {
    c.spec.schedule = JobSchedule::ZbV;
    // Each chunk is half a 1F1B stage; W a little cheaper than B, as in the paper's runs.
    c.spec.costF = 1'000'000;
    c.spec.costB = 1'000'000;
    c.spec.costW = 800'000;
  }
  return cases;
}

}  // namespace bubblescope::tracegen
