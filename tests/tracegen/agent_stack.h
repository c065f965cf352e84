#pragma once
// A generated job as the capture agent records it: every rank replayed by agent_replay_app (its
// plan from agent_plan.h), one process per rank started together as torchrun starts them, with
// libbubblescope-agent.so preloaded and the fake libnccl.so.2 and libcupti standing in for NCCL
// and the GPU. What comes out is a real run directory of per-rank SQLite traces.
#include <filesystem>

#include "tests/tracegen/execution.h"

namespace bubblescope::tracegen {

// Whose CLOCK_REALTIME the ranks' host timestamps come from. Replay: the replay's (replay_clock.h;
// the agent on realtime ticks): the plan's times exactly, whatever the machine's load, for checks
// that read host times (the analysis). Machine: the machine's, read through the agent's TSC and
// clock anchors as in a real job; host times are then as late as the machine woke each rank.
enum class AgentClock { Replay, Machine };

// Writes the plans under dir/plans and the traces under dir/run, which it returns. Throws
// std::runtime_error with the processes' output if a rank fails.
std::filesystem::path recordAgentRun(const JobTimeline& job, const std::filesystem::path& dir,
                                     AgentClock clock = AgentClock::Replay);

}  // namespace bubblescope::tracegen
