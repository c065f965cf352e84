#include "analyzer/whatif/schedule_match.h"

#include <stdexcept>

#include "reference_engine/schedule/schedule_table.h"

namespace bubblescope::analysis {

ScheduleMatch detectSchedule(const engine::Schedule& observed) {
  ScheduleMatch out;
  out.p = observed.p;
  out.m = observed.m;
  out.v = observed.v;
  out.splitsBackward = observed.splitsBackward();
  for (const engine::NamedSchedule& named : engine::kSchedules) {
    try {
      const engine::Schedule s = named.generate(observed.p, observed.m, observed.v);
      if (s.v == observed.v && s.stages == observed.stages) {
        out.name = named.name;
        out.exact = true;
        return out;
      }
    } catch (const std::invalid_argument&) {
      // This generator cannot serve these parameters: not a candidate.
    }
  }
  return out;
}

}  // namespace bubblescope::analysis
