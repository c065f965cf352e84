#include "reference_engine/schedule/dependencies.h"

#include <algorithm>
#include <cassert>

namespace bubblescope::engine {

int producedEvent(const Schedule& schedule, const OpGraph& graph, int stage, const Op& op) {
  const int vs = schedule.virtualStage(stage, op.chunk);
  switch (op.kind) {
    case OpKind::F:
      return graph.event(Phase::Forward, vs, op.mb);
    case OpKind::B:
    case OpKind::BW:
      return graph.event(Phase::InputGrad, vs, op.mb);
    case OpKind::W:
      return graph.event(Phase::WeightGrad, vs, op.mb);
  }
  return -1;
}

int neededEvent(const Schedule& schedule, const OpGraph& graph, int stage, const Op& op) {
  const int vs = schedule.virtualStage(stage, op.chunk);
  switch (op.kind) {
    case OpKind::F:
      return vs == 0 ? -1 : graph.event(Phase::Forward, vs - 1, op.mb);
    case OpKind::B:
    case OpKind::BW:
      // The loss turns the last virtual stage's forward into its backward.
      return vs == graph.virtualStages - 1 ? graph.event(Phase::Forward, vs, op.mb)
                                           : graph.event(Phase::InputGrad, vs + 1, op.mb);
    case OpKind::W:
      return graph.event(Phase::InputGrad, vs, op.mb);
  }
  return -1;
}

int OpGraph::stageOfOp(int32_t flat) const {
  return static_cast<int>(std::upper_bound(stageBegin.begin(), stageBegin.end(), flat) -
                          stageBegin.begin()) -
         1;
}

namespace {

void claim(const Schedule& s, OpGraph& g, int event, int stage, int32_t flat,
           std::vector<Problem>* problems) {
  if (g.eventOp[event] < 0) {
    g.eventOp[event] = flat;
    return;
  }
  if (problems == nullptr) return;
  const int32_t first = g.eventOp[event];
  const int firstStage = g.stageOfOp(first);
  problems->push_back(
      {ProblemKind::Duplicate, describeOp(s, stage, flat - g.stageBegin[stage]) + " repeats " +
                                   g.describeEvent(s, event) + ", already run by " +
                                   describeOp(s, firstStage, first - g.stageBegin[firstStage])});
}

}  // namespace

OpGraph buildOpGraph(const Schedule& s, std::vector<Problem>* problems) {
  assert(static_cast<int>(s.stages.size()) == s.p);
  OpGraph g;
  g.p = s.p;
  g.m = s.m;
  g.virtualStages = s.virtualStages();
  g.stageBegin.resize(s.p + 1);
  int32_t total = 0;
  for (int st = 0; st < s.p; ++st) {
    g.stageBegin[st] = total;
    total += static_cast<int32_t>(s.stages[st].size());
  }
  g.stageBegin[s.p] = total;
  g.eventOp.assign(g.events(), -1);
  for (int st = 0; st < s.p; ++st) {
    const auto& ops = s.stages[st];
    for (size_t i = 0; i < ops.size(); ++i) {
      assert(ops[i].chunk >= 0 && ops[i].chunk < s.v && ops[i].mb >= 0 && ops[i].mb < s.m);
      const int32_t flat = g.stageBegin[st] + static_cast<int32_t>(i);
      claim(s, g, producedEvent(s, g, st, ops[i]), st, flat, problems);
      if (ops[i].kind == OpKind::BW) {
        const int vs = s.virtualStage(st, ops[i].chunk);
        claim(s, g, g.event(Phase::WeightGrad, vs, ops[i].mb), st, flat, problems);
      }
    }
  }
  g.inputStage.assign(total, -1);
  g.inputIndex.assign(total, -1);
  for (int st = 0; st < s.p; ++st) {
    const auto& ops = s.stages[st];
    for (size_t i = 0; i < ops.size(); ++i) {
      const int need = neededEvent(s, g, st, ops[i]);
      if (need < 0) continue;
      const int32_t flat = g.stageBegin[st] + static_cast<int32_t>(i);
      const int32_t producer = g.eventOp[need];
      if (producer < 0) {
        if (problems != nullptr) {
          problems->push_back(
              {ProblemKind::MissingInput, describeOp(s, st, static_cast<int>(i)) + " waits for " +
                                              g.describeEvent(s, need) + ", which no stage runs"});
        }
        continue;
      }
      // The producer's stage follows from the event, without a search.
      const int producerStage = s.stageOf(need / g.m % g.virtualStages);
      g.inputStage[flat] = producerStage;
      g.inputIndex[flat] = producer - g.stageBegin[producerStage];
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
