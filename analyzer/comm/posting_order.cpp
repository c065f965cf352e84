#include "analyzer/comm/posting_order.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace bubblescope::analysis {
namespace {

using traces::NcclOp;

// A stage's ops that move data, by when the host began them (W sends and receives nothing).
struct HostOp {
  TimeNs launch;
  const RecognizedOp* op;
};

std::vector<HostOp> hostOrder(const RankOps& ops) {
  std::vector<HostOp> out;
  for (size_t i = 0; i < ops.ops.size(); ++i) {
    if (ops.ops[i].op.kind != OpKind::W) out.push_back({ops.hostOf(i).launch, &ops.ops[i]});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const HostOp& a, const HostOp& b) { return a.launch < b.launch; });
  return out;
}

// The stage a send posted at `posted` goes to (the output of the last op begun before it), or
// a receive comes from (the input of the first op begun after it); -1 when no op explains it.
int neighbour(const std::vector<HostOp>& order, bool send, TimeNs posted, int stage,
              const engine::Schedule& layout) {
  // The first op begun at or after the call.
  auto it = std::lower_bound(order.begin(), order.end(), posted,
                             [](const HostOp& o, TimeNs t) { return o.launch < t; });
  if (send) {
    if (it == order.begin()) return -1;
    --it;
  } else if (it == order.end()) {
    return -1;
  }
  const Op& op = it->op->op;
  const bool forward = op.kind == OpKind::F;
  const int vs = layout.virtualStage(stage, op.chunk);
  // Outputs go on the way the pass runs, inputs come from behind it.
  const int other = send == forward ? vs + 1 : vs - 1;
  if (other < 0 || other >= layout.virtualStages()) return -1;
  const int s = layout.stageOf(other);
  return s == stage ? -1 : s;  // a V's turn stays on its stage: no NCCL call
}

// The stream each call's kernel ran on (kNoStream: none).
std::vector<traces::StreamIndex> kernelStreams(const traces::RankTrace& t, const RankOps& ops) {
  std::vector<traces::StreamIndex> out(t.ncclCalls->size(), traces::kNoStream);
  for (const CommKernel& k : ops.commKernels) {
    if (k.kernel >= t.kernels->size()) continue;
    for (uint32_t j = k.callBegin; j < k.callEnd && j < ops.commCalls.size(); ++j) {
      const int32_t c = ops.commCalls[j];
      if (c >= 0 && static_cast<size_t>(c) < out.size()) out[c] = t.kernels->stream[k.kernel];
    }
  }
  return out;
}

// The stages a stage exchanges data with: the neighbours of its virtual stages.
std::set<int> adjacentStages(int stage, const engine::Schedule& layout) {
  std::set<int> out;
  for (int chunk = 0; chunk < layout.v; ++chunk) {
    const int vs = layout.virtualStage(stage, chunk);
    for (int other : {vs - 1, vs + 1}) {
      if (other >= 0 && other < layout.virtualStages() && layout.stageOf(other) != stage) {
        out.insert(layout.stageOf(other));
      }
    }
  }
  return out;
}

// One labelled stage's sends and receives that name no peer: the neighbouring stage of each
// (-1: none). A stage with one neighbour (a chain's ends) talks to it alone. Otherwise sends
// follow the op that made their data. A receive may be posted well before the op it feeds (ZB-V
// posts it when its sender sends), so where NCCL runs each neighbour's messages on a stream of
// their own (a communicator per pair), the stream its kernel ran on says where it comes from;
// else the op after it does.
std::vector<int> neighbours(const traces::RankTrace& t, const RankOps& ops, int stage,
                            const engine::Schedule& layout) {
  const auto& nc = *t.ncclCalls;
  std::vector<int> out(nc.size(), -1);
  auto unnamed = [&](size_t c, NcclOp op) { return nc.op[c] == op && nc.peer[c] < 0; };
  if (const std::set<int> adjacent = adjacentStages(stage, layout); adjacent.size() == 1) {
    for (size_t c = 0; c < nc.size(); ++c) {
      if (unnamed(c, NcclOp::Send) || unnamed(c, NcclOp::Recv)) out[c] = *adjacent.begin();
    }
    return out;
  }
  const std::vector<HostOp> order = hostOrder(ops);
  const std::vector<traces::StreamIndex> streams = kernelStreams(t, ops);
  std::map<traces::StreamIndex, std::set<int>> sentTo;  // the neighbours each stream sent to
  for (size_t c = 0; c < nc.size(); ++c) {
    if (!unnamed(c, NcclOp::Send)) continue;
    out[c] = neighbour(order, true, nc.start[c], stage, layout);
    if (out[c] >= 0 && streams[c] != traces::kNoStream) sentTo[streams[c]].insert(out[c]);
  }
  // Streams tell neighbours apart only when each serves one, and one each.
  std::set<int> served;
  bool oneEach = sentTo.size() >= 2;
  for (const auto& [stream, to] : sentTo) {
    oneEach = oneEach && to.size() == 1 && served.insert(*to.begin()).second;
  }
  for (size_t c = 0; c < nc.size(); ++c) {
    if (!unnamed(c, NcclOp::Recv)) continue;
    auto it = oneEach && streams[c] != traces::kNoStream ? sentTo.find(streams[c]) : sentTo.end();
    out[c] = it != sentTo.end() ? *it->second.begin()
                                : neighbour(order, false, nc.start[c], stage, layout);
  }
  return out;
}

}  // namespace

PostingOrderPeers peersByPostingOrder(const traces::Run& run, const std::vector<RankOps>& ops,
                                      const PipelinePlaces& places) {
  PostingOrderPeers out;
  out.peerOf.resize(run.ranks.size());
  for (size_t r = 0; r < run.ranks.size(); ++r) {
    const auto& nc = *run.ranks[r].ncclCalls;
    for (size_t c = 0; c < nc.size(); ++c) {
      out.withoutPeer += traces::isPointToPoint(nc.op[c]) && nc.peer[c] < 0;
    }
  }
  if (out.withoutPeer == 0) return out;
  const std::vector<int> global = globalRanks(run);
  for (size_t replica = 0; replica < places.ranksOf.size(); ++replica) {
    const auto& row = places.ranksOf[replica];
    const engine::Schedule& layout = places.layouts.at(replica);
    for (size_t stage = 0; stage < row.size(); ++stage) {
      for (size_t lane = 0; lane < row[stage].size(); ++lane) {
        const size_t r = row[stage][lane];
        if (r >= ops.size() || ops[r].ops.empty()) continue;
        const auto& nc = *run.ranks[r].ncclCalls;
        const std::vector<int> to =
            neighbours(run.ranks[r], ops[r], static_cast<int>(stage), layout);
        for (size_t c = 0; c < nc.size(); ++c) {
          const int s = to[c];
          if (s < 0 || static_cast<size_t>(s) >= row.size() || row[s].empty()) continue;
          // The same place of the neighbouring stage: TP rank t talks to TP rank t.
          const size_t peer = row[s][std::min(lane, row[s].size() - 1)];
          if (out.peerOf[r].empty()) out.peerOf[r].assign(nc.size(), -1);
          out.peerOf[r][c] = global[peer];
          ++out.given;
        }
      }
    }
  }
  return out;
}

PostingOrderJudgement judgePostingOrder(const CommMatches& matches, const std::vector<RankOps>& ops,
                                        const std::vector<TimeNs>& offsets) {
  // Kernels that moved data together overlap; a link paired one message off would pair kernels
  // of different ops, which mostly do not. NCCL's own launch and completion jitter is a few µs.
  constexpr TimeNs kSlack = 10'000;
  PostingOrderJudgement j;
  j.calls = static_cast<size_t>(matches.p2pByPostingOrder);
  j.withoutPeer = j.calls + static_cast<size_t>(matches.p2pWithoutPeer);
  auto shift = [&](uint32_t rank) { return rank < offsets.size() ? offsets[rank] : 0; };
  std::set<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>> seen;
  for (const P2pMatch& m : matches.p2p) {
    if (!m.byPostingOrder) continue;
    // A fused kernel serves several calls: count each pair of kernels once.
    if (!seen.emplace(m.sendKernel.rank, m.sendKernel.kernel, m.recvKernel.rank,
                      m.recvKernel.kernel)
             .second) {
      continue;
    }
    const CommKernel& a = ops[m.sendKernel.rank].commKernels[m.sendKernel.kernel];
    const CommKernel& b = ops[m.recvKernel.rank].commKernels[m.recvKernel.kernel];
    const TimeNs start =
        std::max(a.start + shift(m.sendKernel.rank), b.start + shift(m.recvKernel.rank));
    const TimeNs end = std::min(a.end + shift(m.sendKernel.rank), b.end + shift(m.recvKernel.rank));
    ++j.pairs;
    j.together += start <= end + kSlack;
  }
  if (j.calls == 0) return j;
  const double paired = static_cast<double>(j.calls) / static_cast<double>(j.withoutPeer);
  const double together =
      j.pairs ? static_cast<double>(j.together) / static_cast<double>(j.pairs) : 0;
  j.confidence = paired >= 1.0 && together >= 0.95  ? "high"
                 : paired >= 0.8 && together >= 0.8 ? "medium"
                                                    : "low";
  return j;
}

}  // namespace bubblescope::analysis
