#include "reference_engine/executor/order_fault.h"

#include <optional>

#include "reference_engine/executor/range_names.h"

namespace bubblescope::engine {
namespace {

bool isBackward(OpKind kind) {
  return kind == OpKind::B || kind == OpKind::BW;
}

// Position in `plan` of the op that takes `from`'s output for microbatch `mb`.
std::optional<int> consumerOf(const std::vector<PlannedOp>& plan, Endpoint from, int mb,
                              bool gradient) {
  for (size_t i = 0; i < plan.size(); ++i) {
    const PlannedOp& p = plan[i];
    if (p.op.mb == mb && p.input == from && isBackward(p.op.kind) == gradient) {
      return static_cast<int>(i);
    }
  }
  return std::nullopt;
}

// Position in `plan` of the op that sends `to` its input for microbatch `mb`.
std::optional<int> producerFor(const std::vector<PlannedOp>& plan, Endpoint to, int mb,
                               bool gradient) {
  for (size_t i = 0; i < plan.size(); ++i) {
    const PlannedOp& p = plan[i];
    if (p.op.mb == mb && p.output == to && isBackward(p.op.kind) == gradient) {
      return static_cast<int>(i);
    }
  }
  return std::nullopt;
}

[[noreturn]] void refuse(const Mismatch& mm, const std::string& why) {
  throw FaultSpecError("--mismatch '" + std::to_string(mm.stage) + ":" + std::to_string(mm.mb) +
                       "': " + why);
}

}  // namespace

MismatchEffect planMismatch(const Schedule& schedule, const Mismatch& mm) {
  const std::vector<PlannedOp> plan = planStage(schedule, mm.stage);
  int index = -1;
  for (size_t i = 0; i < plan.size(); ++i) {
    if (plan[i].op.mb == mm.mb) {
      index = static_cast<int>(i);
      break;
    }
  }
  if (index < 0) refuse(mm, "stage " + std::to_string(mm.stage) + " runs no op of that microbatch");
  const PlannedOp& late = plan[static_cast<size_t>(index)];
  const std::string name = opRangeName(late.op);
  if (!late.output || late.output->stage == mm.stage) {
    refuse(mm, name + " on stage " + std::to_string(mm.stage) +
                   " sends nothing to another stage, so running it late disagrees with no "
                   "neighbour");
  }
  const int peer = late.output->stage;
  const bool gradient = isBackward(late.op.kind);
  const std::vector<PlannedOp> peerPlan = planStage(schedule, peer);
  const auto consumer = consumerOf(peerPlan, Endpoint{mm.stage, late.op.chunk}, mm.mb, gradient);
  if (!consumer) refuse(mm, "stage " + std::to_string(peer) + " never receives " + name);
  for (size_t j = static_cast<size_t>(index) + 1; j < plan.size(); ++j) {
    const PlannedOp& y = plan[j];
    if (!y.input || y.input->stage != peer) continue;
    const bool yGradient = isBackward(y.op.kind);
    const auto producer = producerFor(peerPlan, Endpoint{mm.stage, y.op.chunk}, y.op.mb, yGradient);
    if (!producer || *producer < *consumer) continue;
    MismatchEffect e;
    e.stage = mm.stage;
    e.index = index;
    e.afterIndex = static_cast<int>(j);
    e.op = late.op;
    e.after = y.op;
    e.peer = peer;
    e.stageWaits = recvRangeName(yGradient, y.op.mb, y.op.chunk, peer);
    e.peerWaits =
        recvRangeName(gradient, mm.mb, peerPlan[static_cast<size_t>(*consumer)].op.chunk, mm.stage);
    return e;
  }
  refuse(mm, "no later op of stage " + std::to_string(mm.stage) + " needs stage " +
                 std::to_string(peer) + " to have received " + name +
                 " first, so running it late deadlocks nothing (pick an earlier microbatch)");
}

std::vector<PlannedOp> plannedOrder(const Schedule& schedule, int stage, const Faults& faults) {
  std::vector<PlannedOp> plan = planStage(schedule, stage);
  for (const Mismatch& mm : faults.mismatches) {
    if (mm.stage != stage) continue;
    const MismatchEffect e = planMismatch(schedule, mm);
    // Locate by op, not position: an earlier mismatch may have moved things.
    auto at = [&](const Op& op) {
      for (size_t i = 0; i < plan.size(); ++i) {
        if (plan[i].op == op) return i;
      }
      return plan.size();
    };
    const size_t from = at(e.op);
    if (from == plan.size()) continue;
    const PlannedOp moved = plan[from];
    plan.erase(plan.begin() + static_cast<std::ptrdiff_t>(from));
    const size_t after = at(e.after);
    plan.insert(plan.begin() + static_cast<std::ptrdiff_t>(std::min(after + 1, plan.size())),
                moved);
  }
  // Fault sites follow the order actually run.
  std::vector<bool> seen(static_cast<size_t>(schedule.m), false);
  for (PlannedOp& p : plan) {
    p.firstOfMicrobatch = !seen[static_cast<size_t>(p.op.mb)];
    seen[static_cast<size_t>(p.op.mb)] = true;
  }
  return plan;
}

}  // namespace bubblescope::engine
