// Placeholder until the interleaved and zero-bubble generators land.
#include "reference_engine/schedule/schedule.h"

namespace bubblescope::engine {
Schedule Schedule::interleaved1F1B(int, int, int) { throw ScheduleError("interleaved: not built yet"); }
Schedule Schedule::zbH1(int, int) { throw ScheduleError("zb-h1: not built yet"); }
Schedule Schedule::zbH2(int, int) { throw ScheduleError("zb-h2: not built yet"); }
Schedule Schedule::zbV(int, int) { throw ScheduleError("zb-v: not built yet"); }
}  // namespace bubblescope::engine
