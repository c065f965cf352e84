#include "analyzer/infer/host_stage.h"

#include <algorithm>
#include <unordered_map>

#include "analyzer/infer/inferred_steps.h"
#include "analyzer/recognize/comm_fields.h"
#include "analyzer/recognize/rank_order.h"

namespace bubblescope::analysis {

void addHostMatches(const traces::Run& run, const std::vector<RankOps>& marks,
                    CommMatches& matches) {
  std::vector<std::vector<int32_t>> calls(run.ranks.size());
  bool any = false;
  for (size_t r = 0; r < run.ranks.size(); ++r) {
    if (!marks[r].commKernels.empty()) continue;
    const auto& c = *run.ranks[r].ncclCalls;
    for (size_t i = 0; i < c.size(); ++i) {
      if (traces::isPointToPoint(c.op[i])) {
        calls[r].push_back(static_cast<int32_t>(i));
        any = true;
      }
    }
  }
  if (!any) return;
  const CallMatches cm = matchCalls(run, calls);
  for (const auto& [send, recv] : cm.p2p) {
    P2pMatch m;
    m.sendKernel = {send.rank, 0};
    m.recvKernel = {recv.rank, 0};
    m.sendCall = send.call;
    m.recvCall = recv.call;
    m.sendPosted = run.ranks[send.rank].ncclCalls->start[send.call];
    m.recvPosted = run.ranks[recv.rank].ncclCalls->start[recv.call];
    matches.p2p.push_back(m);
  }
}

traces::ThreadIndex postingThread(const traces::RankTrace& t) {
  std::unordered_map<traces::ThreadIndex, size_t> count;
  const auto& c = *t.ncclCalls;
  for (size_t i = 0; i < c.size(); ++i) {
    if (traces::isPointToPoint(c.op[i])) ++count[c.thread[i]];
  }
  traces::ThreadIndex best = 0;
  size_t most = 0;
  for (const auto& [thread, n] : count) {
    if (n > most || (n == most && thread < best)) {
      best = thread;
      most = n;
    }
  }
  return best;
}

HostSegmentation segmentHostStage(const traces::RankTrace& t, const RankOps& marks,
                                  const std::map<int32_t, CutKind>& typed,
                                  traces::ThreadIndex thread, std::array<TimeNs, 2> fallback) {
  std::vector<HostCall> calls;
  const auto& c = *t.ncclCalls;
  for (size_t i = 0; i < c.size(); ++i) {
    if (c.thread[i] != thread) continue;
    auto it = typed.find(static_cast<int32_t>(i));
    calls.push_back({c.start[i], c.end[i], it == typed.end() ? CutKind::Other : it->second});
  }
  for (const auto* list : {&marks.optimizer, &marks.gradSync}) {
    for (const Interval& r : *list) calls.push_back({r.start, r.end, CutKind::Other});
  }
  // The thread's own named ranges (not NCCL's: those are the calls), the evidence of host work.
  std::vector<Interval> named;
  const auto& r = *t.ranges;
  for (size_t i = 0; i < r.size(); ++i) {
    if (r.thread[i] == thread && t.strings.at(r.domain[i]) != "NCCL")
      named.push_back({r.start[i], r.end[i]});
  }
  return segmentHostTime(std::move(calls), std::move(named), fallback, kPostedTogether);
}

RankOps withHostOps(const traces::RankTrace& t, RankOps&& marks, const HostSegmentation& seg,
                    const std::map<int32_t, CutKind>& typed, int stage, int microbatches,
                    const std::unordered_map<int32_t, VCarried>* messages) {
  RankOps out = std::move(marks);
  out.ruleSet = "p2p";
  out.mbInferred = true;
  out.stageFromLabels = stage;
  for (const HostOp& h : seg.ops) {
    RecognizedOp o;
    o.op = Op{h.kind, h.mb, h.chunk};
    o.start = h.start;  // its host range is its span
    o.end = h.end;
    out.ops.push_back(o);
    if (!out.opHosts.empty()) out.opHosts.push_back({o.start, o.end});
  }
  out.otherBusy.insert(out.otherBusy.end(), seg.other.begin(), seg.other.end());
  std::sort(out.otherBusy.begin(), out.otherBusy.end(),
            [](const Interval& a, const Interval& b) { return a.start < b.start; });
  // The transfers are the calls themselves, on the host: a receive from its post until the data
  // was there, a send as long as its call.
  const auto& c = *t.ncclCalls;
  const size_t before = out.comms.size();
  for (const auto& [row, kind] : typed) {
    if (kind == CutKind::Other) continue;
    RecognizedComm r;
    r.send = isSend(kind);
    r.pass = kind == CutKind::ActIn || kind == CutKind::ActOut ? OpKind::F : OpKind::B;
    r.mb = -1;
    if (messages) {
      if (auto m = messages->find(row); m != messages->end()) {
        r.pass = passOf(m->second.message);
        r.chunk = static_cast<uint8_t>(chunkOf(m->second.message));  // 0 or 1
        r.mb = m->second.mb;
      }
    }
    const bool later = kind == CutKind::ActOut || kind == CutKind::GradIn;
    r.peer = later ? stage + 1 : stage - 1;
    r.start = c.start[row];  // posted as it began: RankOps::launchOf
    r.end = c.end[row];
    r.thread = commThread(t, c.thread[row]);
    out.comms.push_back(r);
  }
  if (out.commLaunches.empty()) {
    std::sort(out.comms.begin(), out.comms.end(),
              [](const RecognizedComm& a, const RecognizedComm& b) { return a.start < b.start; });
  } else {  // beside comms posted otherwise
    for (size_t i = before; i < out.comms.size(); ++i)
      out.commLaunches.push_back(out.comms[i].start);
    sortCommsByStart(out);
  }
  // With no device work, a collective's host call is the gradient sync itself.
  for (size_t i = 0; i < c.size(); ++i) {
    if (traces::isCollective(c.op[i])) out.gradSync.push_back({c.start[i], c.end[i]});
  }
  std::sort(out.gradSync.begin(), out.gradSync.end(),
            [](const Interval& a, const Interval& b) { return a.start < b.start; });
  cutInferredSteps(t, out, microbatches);
  return out;
}

}  // namespace bubblescope::analysis
