#include "analyzer/whatif/schedule_match.h"

#include <functional>
#include <stdexcept>

namespace bubblescope::analysis {

ScheduleMatch detectSchedule(const engine::Schedule& observed) {
  using engine::Schedule;
  ScheduleMatch out;
  out.p = observed.p;
  out.m = observed.m;
  out.v = observed.v;
  out.splitsBackward = observed.splitsBackward();
  const int p = observed.p, m = observed.m, v = observed.v;
  const std::vector<std::function<Schedule()>> candidates = {
      [&] { return Schedule::gpipe(p, m); },
      [&] { return Schedule::oneF1B(p, m); },
      [&] { return Schedule::interleaved1F1B(p, m, v); },
      [&] { return Schedule::zbH1(p, m); },
      [&] { return Schedule::zbH2(p, m); },
      [&] { return Schedule::zbV(p, m); },
  };
  for (const auto& make : candidates) {
    try {
      const Schedule s = make();
      if (s.v == v && s.stages == observed.stages) {
        out.name = engine::scheduleName(s.kind);
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
