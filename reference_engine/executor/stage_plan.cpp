#include "reference_engine/executor/stage_plan.h"

#include <algorithm>
#include <set>

namespace bubblescope::engine {

std::vector<PlannedOp> planStage(const Schedule& schedule, int stage) {
  const int last = schedule.virtualStages() - 1;
  auto endpointOf = [&](int vs) { return Endpoint{schedule.stageOf(vs), schedule.chunkOf(vs)}; };
  std::vector<PlannedOp> plan;
  std::set<int> seenMb;
  for (const Op& op : schedule.stages.at(stage)) {
    PlannedOp p;
    p.op = op;
    p.virtualStage = schedule.virtualStage(stage, op.chunk);
    p.lastVirtualStage = p.virtualStage == last;
    p.firstOfMicrobatch = seenMb.insert(op.mb).second;
    switch (op.kind) {
      case OpKind::F:
        if (p.virtualStage > 0) p.input = endpointOf(p.virtualStage - 1);
        if (p.virtualStage < last) p.output = endpointOf(p.virtualStage + 1);
        break;
      case OpKind::B:
      case OpKind::BW:
        if (p.virtualStage < last) p.input = endpointOf(p.virtualStage + 1);
        if (p.virtualStage > 0) p.output = endpointOf(p.virtualStage - 1);
        break;
      case OpKind::W:
        break;
    }
    plan.push_back(p);
  }
  return plan;
}

std::vector<std::pair<int, int>> channelPairs(const Schedule& schedule) {
  std::set<std::pair<int, int>> pairs;
  auto add = [&](int a, int b) {
    if (a != b) pairs.insert({std::min(a, b), std::max(a, b)});
  };
  for (int s = 0; s + 1 < schedule.p; ++s) add(s, s + 1);
  for (int vs = 0; vs + 1 < schedule.virtualStages(); ++vs) {
    add(schedule.stageOf(vs), schedule.stageOf(vs + 1));
  }
  return {pairs.begin(), pairs.end()};
}

}  // namespace bubblescope::engine
