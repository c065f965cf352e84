#include "reference_engine/schedule/dependencies.h"

#include <cassert>

namespace bubblescope::engine {

int producedEvent(const Schedule& schedule, const OpGraph& graph, int stage, const Op& op) {
  const int vs = schedule.virtualStage(stage, op.chunk);
  switch (op.kind) {
    case OpKind::F: return graph.event(Phase::Forward, vs, op.mb);
    case OpKind::B:
    case OpKind::BW: return graph.event(Phase::InputGrad, vs, op.mb);
    case OpKind::W: return graph.event(Phase::WeightGrad, vs, op.mb);
  }
  return -1;
}

int neededEvent(const Schedule& schedule, const OpGraph& graph, int stage, const Op& op) {
  const int vs = schedule.virtualStage(stage, op.chunk);
  switch (op.kind) {
    case OpKind::F: return vs == 0 ? -1 : graph.event(Phase::Forward, vs - 1, op.mb);
    case OpKind::B:
    case OpKind::BW:
      // The loss turns the last virtual stage's forward into its backward.
      return vs == graph.virtualStages - 1 ? graph.event(Phase::Forward, vs, op.mb)
                                           : graph.event(Phase::InputGrad, vs + 1, op.mb);
    case OpKind::W: return graph.event(Phase::InputGrad, vs, op.mb);
  }
  return -1;
}

OpGraph buildOpGraph(const Schedule& schedule) {
  assert(static_cast<int>(schedule.stages.size()) == schedule.p);
  OpGraph g;
  g.p = schedule.p;
  g.m = schedule.m;
  g.virtualStages = schedule.virtualStages();
  g.stageBegin.resize(schedule.p + 1);
  int32_t total = 0;
  for (int s = 0; s < schedule.p; ++s) {
    g.stageBegin[s] = total;
    total += static_cast<int32_t>(schedule.stages[s].size());
  }
  g.stageBegin[schedule.p] = total;
  g.needs.resize(total);
  g.produces.resize(total);
  for (int s = 0; s < schedule.p; ++s) {
    const auto& ops = schedule.stages[s];
    for (size_t i = 0; i < ops.size(); ++i) {
      assert(ops[i].chunk >= 0 && ops[i].chunk < schedule.v);
      assert(ops[i].mb >= 0 && ops[i].mb < schedule.m);
      g.needs[g.stageBegin[s] + i] = neededEvent(schedule, g, s, ops[i]);
      g.produces[g.stageBegin[s] + i] = producedEvent(schedule, g, s, ops[i]);
    }
  }
  return g;
}

std::string OpGraph::describeEvent(const Schedule& schedule, int e) const {
  const int mb = e % m;
  const int vs = (e / m) % virtualStages;
  const auto phase = static_cast<Phase>(e / m / virtualStages);
  const char* name = phase == Phase::Forward ? "F" : phase == Phase::InputGrad ? "B" : "W";
  return std::string(name) + std::to_string(mb) + " of virtual stage " + std::to_string(vs) +
         " (stage " + std::to_string(schedule.stageOf(vs)) + ")";
}

std::string describeOp(const Schedule& schedule, int stage, int index) {
  return "stage " + std::to_string(stage) + " op #" + std::to_string(index) + " (" +
         label(schedule.stages[stage][index]) + ")";
}

}  // namespace bubblescope::engine
