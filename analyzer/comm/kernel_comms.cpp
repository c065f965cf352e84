#include "analyzer/comm/kernel_comms.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "analyzer/recognize/rank_order.h"

namespace bubblescope::analysis {
namespace {

// What an op's input or output is, whatever its step: its consumer's pass, microbatch and chunk.
using MessageKey = std::tuple<OpKind, int, int>;

// A stage's ops whose output goes to each other stage, and whose input comes from it, in start
// order; the latter also by what they receive.
struct Owners {
  std::map<int, std::vector<const RecognizedOp*>> makesFor, needsFrom;
  std::map<std::pair<int, MessageKey>, std::vector<const RecognizedOp*>> needsByKey;
};

Owners ownersOf(const RankOps& ops, int stage, const engine::Schedule& layout) {
  std::vector<const RecognizedOp*> sorted;
  for (const auto& o : ops.ops) sorted.push_back(&o);
  std::stable_sort(sorted.begin(), sorted.end(), [](const RecognizedOp* a, const RecognizedOp* b) {
    return a->start < b->start;
  });
  const int last = layout.virtualStages() - 1;
  Owners w;
  for (const RecognizedOp* o : sorted) {
    if (o->op.kind == OpKind::W) continue;
    const int vs = layout.virtualStage(stage, o->op.chunk);
    const bool forward = o->op.kind == OpKind::F;
    const int out = forward ? vs + 1 : vs - 1, in = forward ? vs - 1 : vs + 1;
    if (out >= 0 && out <= last && layout.stageOf(out) != stage) {
      w.makesFor[layout.stageOf(out)].push_back(o);
    }
    if (in >= 0 && in <= last && layout.stageOf(in) != stage) {
      const int from = layout.stageOf(in);
      w.needsFrom[from].push_back(o);
      const MessageKey key{forward ? OpKind::F : OpKind::B, o->op.mb, o->op.chunk};
      w.needsByKey[{from, key}].push_back(o);
    }
  }
  return w;
}

// A rank's sides of the matched sends and receives, in its posting order.
struct Side {
  const P2pMatch* match;
  bool send;
  TimeNs posted;
};

std::vector<Side> sidesOf(const CommMatches& matches, uint32_t rank) {
  std::vector<Side> sides;
  for (const P2pMatch& m : matches.p2p) {
    if (m.sendKernel.rank == rank) sides.push_back({&m, true, m.sendPosted});
    if (m.recvKernel.rank == rank) sides.push_back({&m, false, m.recvPosted});
  }
  std::stable_sort(sides.begin(), sides.end(),
                   [](const Side& a, const Side& b) { return a.posted < b.posted; });
  return sides;
}

RecognizedComm commOf(const RecognizedOp& owner, bool send, int peer, const CommKernel& ck) {
  RecognizedComm c;
  c.send = send;
  c.pass = owner.op.kind == OpKind::F ? OpKind::F : OpKind::B;
  c.mb = owner.op.mb;
  c.chunk = static_cast<uint8_t>(owner.op.chunk);  // below kCommChunks (buildPipeline)
  c.peer = peer;
  c.start = ck.start;
  c.end = ck.end;
  c.step = owner.step;
  c.onDevice = true;
  return c;
}

}  // namespace

void commsFromKernels(const std::vector<KernelCommStage>& stages, const CommMatches& matches,
                      const std::vector<int>& stageOfRank, const engine::Schedule& layout) {
  auto peerOf = [&](const KernelRef& other) {
    return other.rank < stageOfRank.size() ? stageOfRank[other.rank] : -1;
  };
  std::vector<Owners> owners;
  std::vector<std::vector<Side>> sides;
  for (const KernelCommStage& s : stages) {
    owners.push_back(ownersOf(*s.ops, s.stage, layout));
    sides.push_back(sidesOf(matches, s.rank));
  }
  std::vector<PostedComms> added(stages.size());
  for (size_t i = 0; i < stages.size(); ++i) {  // at most one each
    added[i].comms.reserve(sides[i].size());
    added[i].launches.reserve(sides[i].size());
  }
  // The sends first, by the sender's op order: what each carried, for its receive to take.
  std::unordered_map<const P2pMatch*, MessageKey> carried;
  for (size_t i = 0; i < stages.size(); ++i) {
    const KernelCommStage& s = stages[i];
    std::map<int, size_t> seen;  // peer -> sends so far
    for (const Side& side : sides[i]) {
      if (!side.send) continue;
      const int peer = peerOf(side.match->recvKernel);
      if (peer < 0 || peer == s.stage) continue;
      const auto& makers = owners[i].makesFor[peer];
      size_t& n = seen[peer];
      if (n >= makers.size()) continue;
      const CommKernel& ck = s.ops->commKernels[side.match->sendKernel.kernel];
      // A send carries what an op made, so it starts after that op's work ended: one that
      // starts before the n-th such op ended carries the output of an op the trace does not
      // hold (a capture window that opened after it, with the send's kernel inside).
      if (ck.start < makers[n]->end) continue;
      const RecognizedOp* maker = makers[n++];
      added[i].add(commOf(*maker, true, peer, ck), ck.launch);
      // The op it feeds on the peer: the next virtual stage along its pass.
      const int vs = layout.virtualStage(s.stage, maker->op.chunk);
      const bool forward = maker->op.kind == OpKind::F;
      carried[side.match] = {forward ? OpKind::F : OpKind::B, maker->op.mb,
                             layout.chunkOf(forward ? vs + 1 : vs - 1)};
    }
  }
  // Then the receives: each the next op that takes what its send carried, else (its send not
  // read here) the next op by op order that none took.
  for (size_t i = 0; i < stages.size(); ++i) {
    const KernelCommStage& s = stages[i];
    std::map<std::pair<int, MessageKey>, size_t> byKey;
    std::map<int, size_t> byOrder;
    std::set<const RecognizedOp*> taken;
    for (const Side& side : sides[i]) {
      if (side.send) continue;
      const int peer = peerOf(side.match->sendKernel);
      if (peer < 0 || peer == s.stage) continue;
      const RecognizedOp* owner = nullptr;
      if (auto it = carried.find(side.match); it != carried.end()) {
        const auto& takers = owners[i].needsByKey[{peer, it->second}];
        size_t& n = byKey[{peer, it->second}];
        while (n < takers.size() && taken.count(takers[n]) != 0) ++n;
        if (n < takers.size()) owner = takers[n++];
      } else {
        const auto& takers = owners[i].needsFrom[peer];
        size_t& n = byOrder[peer];
        while (n < takers.size() && taken.count(takers[n]) != 0) ++n;
        if (n < takers.size()) owner = takers[n++];
      }
      if (owner == nullptr) continue;
      taken.insert(owner);
      const CommKernel& ck = s.ops->commKernels[side.match->recvKernel.kernel];
      added[i].add(commOf(*owner, false, peer, ck), ck.launch);
    }
  }
  for (size_t i = 0; i < stages.size(); ++i) {
    addComms(*stages[i].ops, std::move(added[i]));
  }
}

void commsFromKernels(RankOps& ops, uint32_t rank, int stage, const CommMatches& matches,
                      const std::vector<int>& stageOfRank, const engine::Schedule& layout) {
  commsFromKernels({KernelCommStage{&ops, rank, stage}}, matches, stageOfRank, layout);
}

}  // namespace bubblescope::analysis
