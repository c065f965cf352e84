#pragma once
// Statistics of a selected time range (Tracy's "limit statistics to range", Perfetto's area
// selection): per stage, how much of the range its ops cover, how much was idle and of which
// class, and what else (transfers outside ops, the step's tail); and the ops in the range.
#include <array>
#include <cstdint>
#include <vector>

#include "gui/model/timeline_model.h"

namespace bubblescope::gui {

struct StageRangeStats {
  TimeNs ops = 0;    // covered by the stage's ops
  TimeNs idle = 0;   // the gaps' idle time inside the range, = the sum of idleByClass
  TimeNs other = 0;  // the rest of the range
  analysis::IdleByClass idleByClass{};
  std::array<int, 4> opCount{};  // ops reaching into the range, by kind
};

struct RangeStats {
  Interval range;
  std::vector<StageRangeStats> stages;
  std::vector<uint32_t> ops;  // indexes into PipelineResult::ops reaching into the range, by start
};

// A gap's idle is spread evenly over its interval (its classes are amounts, not places), so a
// range cutting a gap takes the cut share of each class.
RangeStats rangeStats(const PipelineRows& p, Interval range);

}  // namespace bubblescope::gui
