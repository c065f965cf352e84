#pragma once
// Parameter checks shared by the schedule generators.
#include <string>

#include "reference_engine/schedule/schedule.h"

namespace bubblescope::engine {

inline void requireBasics(const std::string& schedule, int p, int m) {
  if (p < 1) throw ScheduleError(schedule + " needs at least 1 stage (p=" + std::to_string(p) + ")");
  if (m < 1) {
    throw ScheduleError(schedule + " needs at least 1 microbatch (m=" + std::to_string(m) + ")");
  }
}

}  // namespace bubblescope::engine
