#pragma once
// CLOCK_REALTIME of the replay process, as a test double: agent_replay_app exports its own
// clock_gettime, which the preloaded agent and the fake libcupti bind to (the executable comes
// first in the dynamic linker's lookup). Until it is started it is the machine's clock; a rank
// starts it at the machine's time as it begins (so the agent's clock anchors are read on it too),
// then at its origin, and from then on it reads the time of the action being replayed (1 ns more
// at each read, so that it never stands still), so every host timestamp is the generator's
// however late a loaded machine wakes the replay. Other clocks (CLOCK_MONOTONIC: the agent's
// timers) are the machine's.
#include <cstdint>

namespace bubblescope::tracegen {

// The machine's CLOCK_REALTIME, whatever the replay clock reads.
int64_t machineRealtimeNs();

// From now on CLOCK_REALTIME reads `ns` (and on).
void startReplayClock(int64_t ns);
// The clock moves to `ns` if it is behind it.
void advanceReplayClock(int64_t ns);

}  // namespace bubblescope::tracegen
