#include "analyzer/infer/step_pattern.h"

#include <algorithm>
#include <vector>

namespace bubblescope::analysis {
namespace {

// Steps from their starts: each ends where the next begins, the last with the stage's last work
// (its own gradient sync included). None unless there are two.
void addSteps(RankOps& ops, const std::vector<TimeNs>& starts) {
  if (starts.size() < 2) return;
  TimeNs lastEnd = 0;
  for (size_t i = 0; i < ops.ops.size(); ++i) {
    lastEnd = std::max(lastEnd, std::max(ops.ops[i].end, ops.hostOf(i).end));
  }
  for (const CommKernel& k : ops.commKernels) lastEnd = std::max(lastEnd, k.end);
  for (const DeviceWork& w : ops.otherKernels) lastEnd = std::max(lastEnd, w.end);
  // A CPU job's collectives are host calls: the last step ends with its own gradient sync.
  for (const RecognizedComm& c : ops.comms) lastEnd = std::max(lastEnd, c.end);
  for (const auto* list : {&ops.gradSync, &ops.optimizer}) {
    for (const Interval& i : *list) lastEnd = std::max(lastEnd, i.end);
  }
  for (size_t k = 0; k < starts.size(); ++k) {
    const TimeNs end = k + 1 < starts.size() ? starts[k + 1] - 1 : lastEnd;
    ops.steps.push_back({static_cast<int64_t>(k), starts[k], end});
  }
}

// An op's kind and host range, the ops by when the host launched them.
struct Hosted {
  OpKind kind;
  HostSpan host;
};
std::vector<Hosted> byLaunch(const RankOps& ops) {
  std::vector<Hosted> out;
  out.reserve(ops.ops.size());
  for (size_t i = 0; i < ops.ops.size(); ++i) out.push_back({ops.ops[i].op.kind, ops.hostOf(i)});
  std::sort(out.begin(), out.end(),
            [](const Hosted& a, const Hosted& b) { return a.host.launch < b.host.launch; });
  return out;
}

}  // namespace

void stepsFromCollectives(RankOps& ops, const std::vector<Interval>& collectives,
                          const std::vector<TimeNs>& posts) {
  if (ops.ops.empty() || collectives.empty()) return;
  const std::vector<Hosted> hosted = byLaunch(ops);
  // At or after: a receive posted as the collective returned belongs to the next step.
  auto firstPostAfter = [&](TimeNs t) {
    auto it = std::lower_bound(posts.begin(), posts.end(), t);
    return it == posts.end() ? INT64_MAX : *it;
  };
  std::vector<TimeNs> starts = {
      std::min(hosted.front().host.launch, posts.empty() ? INT64_MAX : posts.front())};
  for (size_t i = 1; i < hosted.size(); ++i) {
    if (hosted[i].kind != OpKind::F) continue;
    // The last collective that began between the previous op's host end and this forward.
    const TimeNs after = hosted[i - 1].host.end, before = hosted[i].host.launch;
    auto c = std::lower_bound(collectives.begin(), collectives.end(), after,
                              [](const Interval& v, TimeNs t) { return v.start < t; });
    if (c == collectives.end() || c->start >= before) continue;
    TimeNs lastEnd = c->end;
    for (; c != collectives.end() && c->start < before; ++c) lastEnd = std::max(lastEnd, c->end);
    // The step opens with the receive of its input when that was posted first.
    starts.push_back(std::min(before, firstPostAfter(lastEnd)));
  }
  addSteps(ops, starts);
}

int microbatchesPerStep(const std::vector<OpKind>& kinds) {
  std::vector<int> perRun;
  int inFlight = 0, forwards = 0;
  for (OpKind k : kinds) {
    if (k == OpKind::F) {
      ++inFlight;
      ++forwards;
    } else if (k == OpKind::B || k == OpKind::BW) {
      if (--inFlight < 0) return 0;
      if (inFlight == 0) {
        perRun.push_back(forwards);
        forwards = 0;
      }
    }
  }
  if (perRun.size() < 2 || inFlight != 0) return 0;
  for (int n : perRun) {
    if (n != perRun.front()) return 0;
  }
  return perRun.front();
}

void stepsByMicrobatchCount(RankOps& ops, int m, const std::vector<TimeNs>& receives) {
  if (ops.ops.empty() || m <= 0) return;
  const std::vector<Hosted> hosted = byLaunch(ops);
  std::vector<TimeNs> starts = {
      std::min(hosted.front().host.launch, receives.empty() ? INT64_MAX : receives.front())};
  int backwards = 0;
  for (size_t i = 0; i + 1 < hosted.size(); ++i) {
    const OpKind k = hosted[i].kind;
    if (k != OpKind::B && k != OpKind::BW) continue;
    if (++backwards % m != 0) continue;
    // The next step opens with the receive of its input when that was posted first.
    auto post = std::lower_bound(receives.begin(), receives.end(), hosted[i].host.end);
    const TimeNs next = hosted[i + 1].host.launch;
    // After the backward's end, even where the next op starts that very instant (a forward
    // read off the same stretch of host time): the backward is its step's.
    const TimeNs opens = post != receives.end() ? std::min(next, *post) : next;
    starts.push_back(std::max(opens, hosted[i].host.end + 1));
  }
  addSteps(ops, starts);
}
}  // namespace bubblescope::analysis
