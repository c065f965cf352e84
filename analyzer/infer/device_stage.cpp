#include "analyzer/infer/device_stage.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "analyzer/infer/inferred_steps.h"
#include "analyzer/recognize/kernel_attribution.h"

namespace bubblescope::analysis {
namespace {

bool inside(const std::vector<Interval>& ranges, TimeNs t) {
  return std::any_of(ranges.begin(), ranges.end(),
                     [t](const Interval& r) { return t >= r.start && t <= r.end; });
}

}  // namespace

// The NCCL kernels alone, with their calls and launches, as attributeKernels finds them: all the
// first pass needs to match transfers, without a map of every launch.
void ncclKernelsOf(const traces::RankTrace& t, const std::vector<int8_t>& nccl,
                   const Launches& launches, RankOps& ops) {
  const auto& k = *t.kernels;
  std::unordered_set<uint32_t> wanted;
  for (size_t i = 0; i < k.size(); ++i) {
    if (nccl[k.name[i]] == 1 && k.correlation[i] != 0) wanted.insert(k.correlation[i]);
  }
  std::unordered_multimap<uint32_t, uint64_t> callIdOf;
  for (size_t i = 0; i < t.correlations->size(); ++i) {
    if (t.correlations->externalKind[i] == traces::ExternalKind::NcclCall &&
        wanted.count(t.correlations->correlation[i])) {
      callIdOf.emplace(t.correlations->correlation[i], t.correlations->externalId[i]);
    }
  }
  std::unordered_map<uint64_t, int32_t> callRowOf;
  for (size_t i = 0; i < t.ncclCalls->size(); ++i)
    callRowOf.emplace(t.ncclCalls->id[i], static_cast<int32_t>(i));
  ops.hasKernels = k.size() > 0;
  for (size_t i = 0; i < k.size(); ++i) {
    if (nccl[k.name[i]] != 1) continue;
    CommKernel ck;
    ck.start = k.start[i];
    ck.end = k.end[i];
    ck.launch = launches.at(t, k.correlation[i]);
    ck.transferStart = ck.start;
    ck.callBegin = static_cast<uint32_t>(ops.commCalls.size());
    const auto [first, last] = callIdOf.equal_range(k.correlation[i]);
    for (auto id = first; id != last; ++id) {
      if (auto row = callRowOf.find(id->second); row != callRowOf.end())
        ops.commCalls.push_back(row->second);
    }
    ck.callEnd = static_cast<uint32_t>(ops.commCalls.size());
    ops.commKernels.push_back(ck);
  }
  std::sort(ops.commKernels.begin(), ops.commKernels.end(),
            [](const CommKernel& a, const CommKernel& b) { return a.start < b.start; });
}

// The compute kernels' launch calls, the optimizer's left out, sorted. Every thread's: PyTorch's
// autograd engine launches a backward's kernels from its device thread, the forward's come from
// the training loop's.
Launches launchesOf(const traces::RankTrace& t) {
  Launches out;
  auto& byCorrelation = out.byCorrelation;
  byCorrelation.reserve(t.apiCalls->size());
  for (size_t i = 0; i < t.apiCalls->size(); ++i) {
    if (t.apiCalls->correlation[i] != 0)
      byCorrelation.emplace_back(t.apiCalls->correlation[i], static_cast<uint32_t>(i));
  }
  if (!std::is_sorted(byCorrelation.begin(), byCorrelation.end())) {
    std::sort(byCorrelation.begin(), byCorrelation.end());
  }
  return out;
}

void computeLaunches(const traces::RankTrace& t, const RankOps& marks,
                     const std::vector<int8_t>& nccl, Launches& out) {
  auto& all = out.compute;
  for (size_t i = 0; i < t.kernels->size(); ++i) {
    if (nccl[t.kernels->name[i]] == 1) continue;
    const uint32_t* r = out.row(t.kernels->correlation[i]);
    if (!r || inside(marks.optimizer, t.apiCalls->start[*r])) continue;
    all.push_back({t.apiCalls->start[*r], t.apiCalls->end[*r], t.apiCalls->thread[*r],
                   static_cast<uint32_t>(i)});
  }
  auto byStart = [](const LaunchCall& a, const LaunchCall& b) { return a.start < b.start; };
  if (!std::is_sorted(all.begin(), all.end(), byStart)) std::sort(all.begin(), all.end(), byStart);
}

// Where the rank's compute is cut: every NCCL call (typed when it is a matched transfer along
// the chain) and the optimizer. Not the step ranges: torch's ProfilerStep#N can open after the
// step's first op began launching, and a backward followed by the next step's forward is split
// like any other pair.
std::vector<Cut> cutsOf(const traces::RankTrace& t, const RankOps& marks,
                        const std::map<int32_t, CutKind>& typed) {
  std::vector<Cut> cuts;
  const auto& calls = *t.ncclCalls;
  for (size_t i = 0; i < calls.size(); ++i) {
    if (!traces::movesData(calls.op[i])) continue;
    auto it = typed.find(static_cast<int32_t>(i));
    cuts.push_back({calls.start[i], it == typed.end() ? CutKind::Other : it->second});
  }
  for (const Interval& o : marks.optimizer) cuts.push_back({o.start, CutKind::Other});
  return cuts;
}

// The stage's ops and their kernels, as attributeKernels would tie them to labelled ops (an op
// runs from its first kernel to its last; everything else is other device work), then steps cut
// and microbatches numbered as for labels without ids.
RankOps withOps(const traces::RankTrace& t, RankOps&& marks, const Launches& l,
                const std::vector<int8_t>& nccl, const Segmentation& seg, int stage,
                int microbatches, PostedComms comms) {
  const std::vector<LaunchCall>& launches = l.compute;
  RankOps out;
  out.ruleSet = "p2p";
  out.mbInferred = true;
  out.stageFromLabels = stage;
  out.steps = std::move(marks.steps);
  out.optimizer = std::move(marks.optimizer);
  out.gradSync = std::move(marks.gradSync);
  out.otherBusy = std::move(marks.otherBusy);
  out.hostActivity = std::move(marks.hostActivity);
  out.hostActivityName = std::move(marks.hostActivityName);
  out.hostNames = std::move(marks.hostNames);
  out.hasKernels = marks.hasKernels;
  out.commKernels = std::move(marks.commKernels);
  out.commCalls = std::move(marks.commCalls);
  out.kernelsForMemory = std::move(marks.kernelsForMemory);
  addComms(out, std::move(comms));
  const auto& k = *t.kernels;
  std::vector<bool> inOp(k.size(), false);
  for (const SegmentOp& s : seg.ops) {
    RecognizedOp o;
    o.op = Op{s.kind, s.mb, s.chunk};
    OpKernels kernels;
    // Its host range: its launch calls'.
    const HostSpan host{launches[s.begin].start, launches[s.end - 1].end};
    kernels.firstLaunch = host.launch;
    o.start = INT64_MAX;
    o.end = INT64_MIN;
    kernels.begin = static_cast<uint32_t>(out.computeKernels.size());
    std::vector<Interval> spans;
    for (size_t i = s.begin; i < s.end; ++i) {
      const uint32_t kernel = launches[i].kernel;
      inOp[kernel] = true;
      spans.push_back({k.start[kernel], k.end[kernel]});
      o.start = std::min(o.start, k.start[kernel]);
      o.end = std::max(o.end, k.end[kernel]);
    }
    out.computeKernels.insert(out.computeKernels.end(), spans.begin(), spans.end());
    kernels.end = static_cast<uint32_t>(out.computeKernels.size());
    out.ops.push_back(o);
    out.opKernels.push_back(kernels);
    out.opHosts.push_back(host);
  }
  for (size_t i = 0; i < k.size(); ++i) {
    if (!inOp[i] && nccl[k.name[i]] != 1)
      out.otherKernels.push_back({k.start[i], k.end[i], l.at(t, k.correlation[i])});
  }
  for (size_t i = 0; i < t.memcpys->size(); ++i) {
    out.otherKernels.push_back(
        {t.memcpys->start[i], t.memcpys->end[i], l.at(t, t.memcpys->correlation[i])});
  }
  for (size_t i = 0; i < t.memsets->size(); ++i) {
    out.otherKernels.push_back(
        {t.memsets->start[i], t.memsets->end[i], l.at(t, t.memsets->correlation[i])});
  }
  auto byStart = [](const auto& a, const auto& b) { return a.start < b.start; };
  std::sort(out.otherKernels.begin(), out.otherKernels.end(), byStart);
  sortOpsByStart(out);
  cutInferredSteps(t, out, microbatches);
  return out;
}

}  // namespace bubblescope::analysis
