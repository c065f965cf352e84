#include "analyzer/infer/confidence.h"

#include <map>
#include <utility>

namespace bubblescope::analysis {
namespace {

// Steps in which every stage ran the same m forwards and m backwards.
int completeSteps(const PipelineResult& pl) {
  std::map<std::pair<int, int>, std::pair<int, int>> count;  // (step, stage) -> (F, B)
  for (const OpRecord& o : pl.ops) {
    if (o.op.kind == OpKind::W) continue;  // a V's weight gradients, apart from their B
    auto& c = count[{o.step, o.stage}];
    (o.op.kind == OpKind::F ? c.first : c.second)++;
  }
  int complete = 0;
  for (size_t k = 0; k < pl.steps.size(); ++k) {
    int m = -1;
    bool ok = true;
    for (const StageResult& st : pl.stages) {
      auto it = count.find({static_cast<int>(k), st.stage});
      if (it == count.end() || it->second.first != it->second.second || it->second.first == 0 ||
          (m >= 0 && it->second.first != m)) {
        ok = false;
        break;
      }
      m = it->second.first;
    }
    complete += ok;
  }
  return complete;
}

}  // namespace

OpInference judgeInference(const P2pInference& inference,
                           const std::vector<PipelineResult>& pipelines) {
  OpInference out;
  out.fromP2p = true;
  int steps = 0, complete = 0, exact = 0;
  std::string schedule;
  for (const PipelineResult& pl : pipelines) {
    steps += static_cast<int>(pl.steps.size());
    complete += completeSteps(pl);
    if (pl.schedule.exact) {
      ++exact;
      schedule = pl.schedule.name;
    }
  }
  const bool allExact = exact == static_cast<int>(pipelines.size()) && !pipelines.empty();
  out.evidence = std::to_string(complete) + " of " + std::to_string(steps) +
                 " step(s) hold every microbatch's F and B on every stage";
  if (inference.vPipelines > 0) {
    out.evidence += "; every stage's sends and receives are the " + inference.vSchedule +
                    " order of a V placement (chunk 0 towards the last rank, chunk 1 back), "
                    "which places each W";
  }
  // A V placement whose order is no known V schedule's reads as a chain of twice the
  // microbatches in an order no schedule has: say so.
  out.evidence += allExact ? "; every step matched the " + schedule + " order"
                           : "; the order matches no known schedule (a V placement in an order "
                             "other than ZB-V's reads like this: it is not told apart from a "
                             "chain)";
  if (inference.hostStages > 0) {
    out.evidence += "; " + std::to_string(inference.hostStages) +
                    " stage(s) ran no device work: their ops are their host time between calls";
  }
  if (inference.splitsGuessed > 0 && inference.vPipelines > 0) {
    out.evidence += "; " + std::to_string(inference.splitsGuessed) +
                    " kind(s) of op never alone between calls on a stage, costed as a "
                    "neighbouring stage's";
  } else if (inference.splitsGuessed > 0) {
    out.evidence += "; " + std::to_string(inference.splitsGuessed) +
                    " F/B pair(s) with no call between them split by a neighbouring stage's " +
                    (inference.hostStages > 0 ? "proportions of F and B" : "kernels per op");
  }
  if (inference.unclassified > 0) {
    out.evidence += "; " + std::to_string(inference.unclassified) +
                    " run(s) of compute between calls no transfer explains, left as other work";
  }
  out.confidence = complete == steps && steps > 0 && allExact ? "high"
                   : complete == steps && steps > 0           ? "medium"
                                                              : "low";
  return out;
}

}  // namespace bubblescope::analysis
