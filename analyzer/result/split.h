#pragma once
// The split of a span (analysis.md §2): compute, exposed communication, other busy and idle, and
// idle by class.
#include <array>

#include "analyzer/result/idle_class.h"
#include "traces/model/time.h"

namespace bubblescope::analysis {

using IdleByClass = std::array<TimeNs, kIdleClasses>;

// The four parts of a span (§2); idle is split further by class. The parts add up to the span
// and the classes to idle, exactly (integer ns).
struct Split {
  TimeNs span = 0;
  TimeNs compute = 0;
  TimeNs exposedComm = 0;
  TimeNs otherBusy = 0;
  TimeNs idle = 0;
  IdleByClass idleByClass{};

  Split& operator+=(const Split& o);
  TimeNs classSum() const;
};

}  // namespace bubblescope::analysis
