#pragma once
// `bubblescope ps --json`: the attachable processes as a JSON array, one object a process (pid,
// rank, state, step and its time, run id, output file, command). Streamed, two spaces a level.
#include <ostream>
#include <vector>

#include "agent/control/targets.h"

namespace bubblescope::cli {

// Writes the array and a newline. step_seconds is null while the process has timed no step.
void writeProcessesJson(const std::vector<control::AgentStatus>& rows, std::ostream& out);

}  // namespace bubblescope::cli
