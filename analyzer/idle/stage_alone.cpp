#include "analyzer/idle/stage_alone.h"

#include <algorithm>

#include "analyzer/timeline/kept_room.h"

namespace bubblescope::analysis {

std::vector<StageAlone> stageAloneMakespans(const engine::PreparedSchedule& order,
                                            engine::SimCosts& ideal,
                                            const engine::SimCosts& measured,
                                            TimeNs idealMakespan) {
  const size_t p = ideal.perOp.size();
  std::vector<StageAlone> out(p);
  // This thread's, their storage reused by every replay of every step (issue 28).
  thread_local engine::SimResult replay;
  thread_local std::vector<TimeNs> row;
  for (size_t s = 0; s < p; ++s) {
    TimeNs longer = 0, shorter = 0;
    const auto& own = measured.perOp[s];
    const auto& at = ideal.perOp[s];
    for (size_t i = 0; i < own.size(); ++i) {
      longer += std::max<TimeNs>(0, own[i] - at[i]);
      shorter += std::max<TimeNs>(0, at[i] - own[i]);
    }
    if (p > static_cast<size_t>(kReplayEveryStage) && (longer + shorter) * 1000 <= idealMakespan) {
      out[s] = {idealMakespan + (longer - shorter) / 2, false};
      continue;
    }
    // This stage's measured row in place of its ideal one, for one replay.
    row.assign(own.begin(), own.end());
    ideal.perOp[s].swap(row);
    try {
      engine::simulate(order, ideal, replay);
    } catch (...) {
      ideal.perOp[s].swap(row);  // the caller's costs as they were
      throw;
    }
    ideal.perOp[s].swap(row);
    out[s] = {replay.makespan, true};
  }
  size_t ops = 0;
  for (const auto& stage : ideal.perOp) ops += stage.size();
  letGoIfLarge(replay, ops);
  letGoIfLarge(row, ops);
  return out;
}

}  // namespace bubblescope::analysis
