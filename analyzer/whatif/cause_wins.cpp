#include "analyzer/whatif/cause_wins.h"

#include <algorithm>

#include "analyzer/idle/root_causes.h"

namespace bubblescope::analysis {
namespace {

// The costs of `id`'s stage with the cause taken out; false when it names nothing to change.
bool removeCause(const CauseId& id, const engine::Schedule& order, const MeanCosts& costs,
                 std::vector<TimeNs>& row) {
  if (id.stage < 0 || id.stage >= static_cast<int>(order.stages.size())) return false;
  const std::vector<Op>& ops = order.stages[id.stage];
  if (id.cause == IdleClass::Jitter && id.hasOp) {
    const auto at = std::find(ops.begin(), ops.end(), id.op);
    if (at == ops.end()) return false;
    TimeNs& c = row[at - ops.begin()];
    c = std::min(c, costs.idealOf(id.op));
    return true;
  }
  if (id.cause == IdleClass::Imbalance) {
    for (size_t j = 0; j < ops.size(); ++j) {
      const TimeNs excess = costs.stageOf(id.stage, ops[j]) - costs.idealOf(ops[j]);
      row[j] = std::max<TimeNs>(0, row[j] - std::max<TimeNs>(0, excess));
    }
    return true;
  }
  return false;
}

}  // namespace

void addStepWins(const StepReplay& s, const std::map<CauseId, TimeNs>& idleInStep,
                 std::map<CauseId, TimeNs>& wins) {
  addStallWins(std::max<TimeNs>(0, s.measured - s.replayed), idleInStep, wins);
  engine::SimCosts& sim = s.opCosts;
  const engine::Schedule& order = s.order.schedule();
  std::vector<TimeNs> measured;
  for (const auto& [id, idle] : idleInStep) {
    if (id.cause != IdleClass::Jitter && id.cause != IdleClass::Imbalance) continue;
    if (id.stage < 0 || id.stage >= static_cast<int>(sim.perOp.size())) continue;
    std::vector<TimeNs>& row = sim.perOp[id.stage];
    measured.assign(row.begin(), row.end());
    const bool changed = removeCause(id, order, s.costs, row);
    if (changed) engine::simulate(s.order, sim, s.scratch);
    row.assign(measured.begin(), measured.end());
    if (changed) wins[id] += std::max<TimeNs>(0, s.measuredCosts.makespan - s.scratch.makespan);
  }
}

}  // namespace bubblescope::analysis
