#include "tests/tracegen/agent_stack.h"

#include <stdexcept>

#include "tests/agent/agent_test_support.h"
#include "tests/support/temp_dir.h"
#include "tests/tracegen/agent_plan.h"

namespace bubblescope::tracegen {
namespace {

// CUPTI's clock is not the system's: the agent must convert its times through its anchors.
constexpr const char* kCuptiClockOffsetNs = "-1234567890";

}  // namespace

std::filesystem::path recordAgentRun(const JobTimeline& job, const std::filesystem::path& dir,
                                     AgentClock clock) {
  const std::filesystem::path plans = dir / "plans", run = dir / "run";
  std::filesystem::create_directories(plans);
  for (int r = 0; r < job.spec.p; ++r) {
    testing::writeFile(plans / ("rank-" + std::to_string(r) + ".plan"),
                       formatPlan(agentReplayPlan(job, r)));
  }
  testing::ProcessOptions o =
      testing::cleanEnv({{"LD_PRELOAD", testing::kAgentLibrary},
                         {"BUBBLESCOPE_OUTPUT_DIR", run.string()},
                         {"BUBBLESCOPE_RUN_ID", "tracegen-agent"},
                         {"BUBBLESCOPE_CUDA", "on"},
                         {"BUBBLESCOPE_CUPTI_PATH", FAKE_CUPTI_LIBRARY},
                         {"BUBBLESCOPE_CONTROL", "0"},
                         {"FAKE_CUPTI_CLOCK_OFFSET_NS", kCuptiClockOffsetNs}});
  // The agent reads the replay's clock only where it reads CLOCK_REALTIME on the hot path too.
  if (clock == AgentClock::Replay) o.env["BUBBLESCOPE_CLOCK"] = "realtime";
  // A real NCCL on LD_LIBRARY_PATH must not stand in for the fake one.
  o.unsetEnv.push_back("LD_LIBRARY_PATH");
  o.unsetEnv.push_back("BUBBLESCOPE_CLOCK");
  o.timeout = std::chrono::seconds(60);
  const testing::ProcessResult r =
      testing::runProcess({AGENT_REPLAY_APP, "launch", plans.string(), FAKE_CUPTI_LIBRARY,
                           clock == AgentClock::Replay ? "replay" : "machine"},
                          o);
  if (r.exitCode != 0) {
    throw std::runtime_error("the agent's replay failed (exit " + std::to_string(r.exitCode) +
                             "):\n" + r.out + r.err);
  }
  return run;
}

}  // namespace bubblescope::tracegen
