#pragma once
// The executor's clocks. Everything recorded is CLOCK_REALTIME ns, the clock profilers put in their
// traces, so truth and trace compare directly; waiting uses CLOCK_MONOTONIC, which never jumps.
#include <cstdint>

namespace bubblescope::engine {

int64_t realtimeNs();
int64_t monotonicNs();

// Sleeps to an absolute deadline, so wake-up latency does not accumulate into the next op.
void sleepUntil(int64_t monotonicDeadlineNs);
// Keeps this CPU busy until the deadline: a host that is working, not waiting.
void spinUntil(int64_t monotonicDeadlineNs);

inline int64_t msToNs(double ms) {
  return static_cast<int64_t>(ms * 1e6 + 0.5);
}

}  // namespace bubblescope::engine
