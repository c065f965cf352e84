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

  // The host lost 40 ms before posting the batch that sends BW2's gradients back and receives
  // F5 (1F1B's bwd_send_fwd_recv): the receive and F5 come late, stage 0's data long there.
  // The host ran about 33 ms ahead of its device there, so the device lost the rest.
  Case post{"HostStallBeforePost", realistic(), IdleClass::HostStall, 1,
            {"host posted the receive of F5 on stage 1", "host of stage 1 posted the send"}};
  post.spec.lateLaunches.push_back({OpId{1, 1, PassKind::F, 5}, 40'000'000, true});
  cases.push_back(post);

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

std::vector<Case> bufferedCases() {
  std::vector<Case> out;
  for (const std::vector<Case>& family : {standardCases(), zbVCases()}) {
    for (Case c : family) {
      if (c.name != "FaultFree" && c.name != "SlowStage" && c.name != "HostStall") continue;
      const bool zbV = c.spec.schedule == JobSchedule::ZbV;
      c.name = std::string(zbV ? "ZbV" : "OneF1B") + c.name;
      c.spec.bufferedBytes = 2 * c.spec.activationBytes;
      out.push_back(c);
      // The same with every receive posted behind the compute before it, as torch's stream
      // sync makes it: a buffered send is then often over before its receive begins.
      c.name += "StreamSync";
      c.spec.p2pWaitsForCompute = true;
      out.push_back(c);
    }
  }
  // Stage 1's host late to launch F0 of step 1 posts the receive of F1 late too: stage 0's send
  // of F1, buffered, is over before that receive begins.
  Case late{"OneF1BLateReceiver", realistic(), IdleClass::HostStall, 1,
            {"host launched F0 on stage 1"}};
  late.spec.bufferedBytes = 2 * late.spec.activationBytes;
  late.spec.lateLaunches.push_back({OpId{1, 1, PassKind::F, 0}, 6'000'000});
  out.push_back(late);
  late.name += "StreamSync";
  late.spec.p2pWaitsForCompute = true;
  out.push_back(late);
  return out;
}

}  // namespace bubblescope::tracegen
