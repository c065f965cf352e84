#include "tests/analyzer/hand_pipeline.h"

#include <algorithm>
#include <climits>

#include "analyzer/recognize/rank_order.h"

namespace bubblescope::testing {
namespace {

using analysis::RankOps;
using analysis::StepMarker;

int stepAt(const std::vector<StepMarker>& steps, TimeNs t) {
  for (size_t i = 0; i < steps.size(); ++i) {
    if (t >= steps[i].start && t <= steps[i].end) return static_cast<int>(i);
  }
  return -1;
}

// Adds `c`, posted at `launch` (RankOps::commLaunches kept only once one differs from its start).
void addComm(RankOps& ops, const analysis::RecognizedComm& c, TimeNs launch) {
  if (launch != c.start) analysis::holdCommLaunches(ops);
  const bool kept = !ops.commLaunches.empty() || launch != c.start;
  ops.comms.push_back(c);
  if (kept) ops.commLaunches.push_back(launch);
}

}  // namespace

HandPipeline& HandPipeline::step(int64_t number, TimeNs start, TimeNs end) {
  steps_.push_back({number, start, end});
  return *this;
}

HandPipeline& HandPipeline::stageStep(int stage, int64_t number, TimeNs start, TimeNs end) {
  stages_[stage].steps.push_back({number, start, end});
  return *this;
}

HandPipeline& HandPipeline::op(int stage, Op o, TimeNs start, TimeNs end, TimeNs launch) {
  analysis::RecognizedOp r;
  r.op = o;
  r.start = start;
  r.end = end;
  RankOps& ops = stages_[stage];
  // Its host range from its launch, where that is not its start (RankOps::opHosts).
  if (launch >= 0 && launch != start) analysis::holdOpHosts(ops);
  ops.ops.push_back(r);
  if (!ops.opHosts.empty()) ops.opHosts.push_back({launch < 0 ? start : launch, end});
  return *this;
}

HandPipeline& HandPipeline::send(int stage, OpKind pass, int mb, int to, TimeNs start, TimeNs end,
                                 int chunk, bool onDevice) {
  // A labelled transfer's range begins when the host posts it; a kernel's launch is not given.
  addComm(stages_[stage],
          analysis::RecognizedComm{.send = true,
                                   .pass = pass,
                                   .onDevice = onDevice,
                                   .chunk = static_cast<uint8_t>(chunk),
                                   .thread = 1,
                                   .mb = mb,
                                   .peer = to,
                                   .step = -1,
                                   .start = start,
                                   .end = end},
          onDevice ? analysis::kNoLaunch : start);
  return *this;
}

HandPipeline& HandPipeline::recv(int stage, OpKind pass, int mb, int from, TimeNs start, TimeNs end,
                                 int chunk, bool onDevice) {
  addComm(stages_[stage],
          analysis::RecognizedComm{.send = false,
                                   .pass = pass,
                                   .onDevice = onDevice,
                                   .chunk = static_cast<uint8_t>(chunk),
                                   .thread = 0,
                                   .mb = mb,
                                   .peer = from,
                                   .step = -1,
                                   .start = start,
                                   .end = end},
          onDevice ? analysis::kNoLaunch : start);
  return *this;
}

HandPipeline& HandPipeline::optimizer(int stage, TimeNs start, TimeNs end) {
  stages_[stage].optimizer.push_back({start, end});
  return *this;
}

HandPipeline& HandPipeline::host(int stage, TimeNs start, TimeNs end, const std::string& name) {
  RankOps& ops = stages_[stage];
  ops.hostActivity.push_back({start, end});
  ops.hostActivityName.push_back(static_cast<uint32_t>(ops.hostNames.size()));
  ops.hostNames.push_back(name);
  return *this;
}

std::vector<RankOps> HandPipeline::rankOps() const {
  // One step over everything unless steps are given.
  TimeNs first = INT64_MAX, last = INT64_MIN;
  for (const RankOps& s : stages_) {
    for (size_t i = 0; i < s.ops.size(); ++i) {
      first = std::min(first, s.hostOf(i).launch), last = std::max(last, s.ops[i].end);
    }
    for (const auto& c : s.comms) first = std::min(first, c.start), last = std::max(last, c.end);
    for (const auto& i : s.optimizer) last = std::max(last, i.end);
  }
  bool anySteps = !steps_.empty();
  for (const RankOps& s : stages_) anySteps = anySteps || !s.steps.empty();
  std::vector<RankOps> out = stages_;
  for (RankOps& s : out) {
    s.ruleSet = "bubblescope";
    s.steps.insert(s.steps.end(), steps_.begin(), steps_.end());
    if (!anySteps) s.steps.push_back({0, first, last});
    auto byStart = [](const auto& a, const auto& b) { return a.start < b.start; };
    std::stable_sort(s.steps.begin(), s.steps.end(), byStart);
    analysis::sortOpsByStart(s);
    analysis::sortCommsByStart(s);
    for (size_t i = 0; i < s.ops.size(); ++i) s.ops[i].step = stepAt(s.steps, s.hostOf(i).launch);
    for (auto& c : s.comms) c.step = stepAt(s.steps, c.start);
  }
  return out;
}

analysis::PipelineTrace HandPipeline::build(analysis::PipelineOptions options) const {
  std::vector<RankOps> ops = rankOps();
  return analysis::buildPipeline(chainTopology(static_cast<int>(ops.size())), 0, ops, options);
}

analysis::Topology chainTopology(int p) {
  analysis::Topology topo;
  topo.pp = p;
  topo.dp = 1;
  topo.source = "metadata";
  topo.dpRanks = {0};
  topo.ranksOf.resize(1);
  for (int s = 0; s < p; ++s) topo.ranksOf[0].push_back({static_cast<size_t>(s)});
  return topo;
}

}  // namespace bubblescope::testing
