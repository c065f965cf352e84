#include "analyzer/infer/step_pattern.h"

#include <algorithm>

namespace bubblescope::analysis {

void stepsFromCollectives(RankOps& ops, const std::vector<Interval>& collectives,
                          const std::vector<TimeNs>& posts) {
  if (ops.ops.empty() || collectives.empty()) return;
  std::vector<const RecognizedOp*> byLaunch;
  for (const RecognizedOp& o : ops.ops) byLaunch.push_back(&o);
  std::sort(byLaunch.begin(), byLaunch.end(),
            [](const RecognizedOp* a, const RecognizedOp* b) { return a->launch < b->launch; });
  auto firstPostAfter = [&](TimeNs t) {
    auto it = std::upper_bound(posts.begin(), posts.end(), t);
    return it == posts.end() ? INT64_MAX : *it;
  };
  std::vector<TimeNs> starts = {
      std::min(byLaunch.front()->launch, posts.empty() ? INT64_MAX : posts.front())};
  for (size_t i = 1; i < byLaunch.size(); ++i) {
    if (byLaunch[i]->op.kind != OpKind::F) continue;
    // The last collective that began between the previous op's host end and this forward.
    const TimeNs after = byLaunch[i - 1]->hostEnd, before = byLaunch[i]->launch;
    auto c = std::lower_bound(collectives.begin(), collectives.end(), after,
                              [](const Interval& v, TimeNs t) { return v.start < t; });
    if (c == collectives.end() || c->start >= before) continue;
    TimeNs lastEnd = c->end;
    for (; c != collectives.end() && c->start < before; ++c) lastEnd = std::max(lastEnd, c->end);
    // The step opens with the receive of its input when that was posted first.
    starts.push_back(std::min(before, firstPostAfter(lastEnd)));
  }
  if (starts.size() < 2) return;
  TimeNs lastEnd = 0;
  for (const RecognizedOp& o : ops.ops) lastEnd = std::max(lastEnd, std::max(o.end, o.hostEnd));
  for (const CommKernel& k : ops.commKernels) lastEnd = std::max(lastEnd, k.end);
  for (const DeviceWork& w : ops.otherKernels) lastEnd = std::max(lastEnd, w.end);
  // The last step ends with its own gradient sync too (a CPU job's collectives are host calls).
  for (const RecognizedComm& c : ops.comms) lastEnd = std::max(lastEnd, c.end);
  for (const auto* list : {&ops.gradSync, &ops.optimizer}) {
    for (const Interval& i : *list) lastEnd = std::max(lastEnd, i.end);
  }
  for (size_t k = 0; k < starts.size(); ++k) {
    const TimeNs end = k + 1 < starts.size() ? starts[k + 1] - 1 : lastEnd;
    ops.steps.push_back({static_cast<int64_t>(k), starts[k], end});
  }
}

}  // namespace bubblescope::analysis
