#pragma once
// The agent's answer to a live `hang` query, gathered on the control thread while the job's
// threads keep running (or sit stuck): every thread's open push/pop ranges (kept dormant too,
// unless BUBBLESCOPE_OPEN_OPS=0) and the NCCL history (agent/nccl/recent_calls.h), in
// CLOCK_REALTIME ns.
#include "agent/control/live_snapshot.h"

namespace bubblescope::agent {

// At start-up, before the control thread: the anchor that converts ticks over the process's life.
void initLiveState();
control::LiveSnapshot gatherLiveSnapshot();

}  // namespace bubblescope::agent
