#include "analyzer/infer/inferred_steps.h"

#include <algorithm>

#include "analyzer/infer/step_pattern.h"
#include "analyzer/recognize/steps.h"

namespace bubblescope::analysis {

void cutInferredSteps(const traces::RankTrace& t, RankOps& ops, int microbatches) {
  using traces::NcclOp;
  if (ops.steps.empty() && ops.optimizer.empty()) {
    // Nothing marks the steps: the collectives that end each one do.
    std::vector<Interval> collectives;
    std::vector<TimeNs> posts, receives;
    for (size_t i = 0; i < t.ncclCalls->size(); ++i) {
      const NcclOp op = t.ncclCalls->op[i];
      if (traces::isPointToPoint(op)) {
        posts.push_back(t.ncclCalls->start[i]);
        if (op == NcclOp::Recv) receives.push_back(t.ncclCalls->start[i]);
      } else if (traces::isCollective(op)) {
        collectives.push_back({t.ncclCalls->start[i], t.ncclCalls->end[i]});
      }
    }
    std::sort(posts.begin(), posts.end());
    std::sort(receives.begin(), receives.end());
    std::sort(collectives.begin(), collectives.end(),
              [](const Interval& a, const Interval& b) { return a.start < b.start; });
    stepsFromCollectives(ops, collectives, posts);
    // Nothing ends the steps either: the microbatch count repeats.
    if (ops.steps.empty()) stepsByMicrobatchCount(ops, microbatches, receives);
  }
  cutSteps(ops);
  numberMicrobatchesByOrder(ops);
}

}  // namespace bubblescope::analysis
