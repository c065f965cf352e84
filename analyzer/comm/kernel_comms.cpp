#include "analyzer/comm/kernel_comms.h"

#include <algorithm>
#include <map>

namespace bubblescope::analysis {

void commsFromKernels(RankOps& ops, uint32_t rank, int stage, const CommMatches& matches,
                      const std::vector<int>& stageOfRank, const engine::Schedule& layout) {
  // The ops whose output goes to each stage, and whose input comes from it, in start order.
  std::vector<const RecognizedOp*> sorted;
  for (const auto& o : ops.ops) sorted.push_back(&o);
  std::stable_sort(sorted.begin(), sorted.end(), [](const RecognizedOp* a, const RecognizedOp* b) {
    return a->start < b->start;
  });
  const int last = layout.virtualStages() - 1;
  std::map<int, std::vector<const RecognizedOp*>> makesFor, needsFrom;
  for (const RecognizedOp* o : sorted) {
    if (o->op.kind == OpKind::W) continue;
    const int vs = layout.virtualStage(stage, o->op.chunk);
    const bool forward = o->op.kind == OpKind::F;
    const int out = forward ? vs + 1 : vs - 1, in = forward ? vs - 1 : vs + 1;
    if (out >= 0 && out <= last && layout.stageOf(out) != stage)
      makesFor[layout.stageOf(out)].push_back(o);
    if (in >= 0 && in <= last && layout.stageOf(in) != stage)
      needsFrom[layout.stageOf(in)].push_back(o);
  }
  // This rank's sides of the matched sends and receives, in its posting order.
  struct Side {
    const P2pMatch* match;
    bool send;
    TimeNs posted;
  };
  std::vector<Side> sides;
  for (const P2pMatch& m : matches.p2p) {
    if (m.sendKernel.rank == rank) sides.push_back({&m, true, m.sendPosted});
    if (m.recvKernel.rank == rank) sides.push_back({&m, false, m.recvPosted});
  }
  std::stable_sort(sides.begin(), sides.end(),
                   [](const Side& a, const Side& b) { return a.posted < b.posted; });
  std::map<std::pair<bool, int>, size_t> seen;  // (send, peer) -> how many so far
  std::vector<RecognizedComm> added;
  for (const Side& side : sides) {
    const KernelRef& mine = side.send ? side.match->sendKernel : side.match->recvKernel;
    const KernelRef& other = side.send ? side.match->recvKernel : side.match->sendKernel;
    const int peer = other.rank < stageOfRank.size() ? stageOfRank[other.rank] : -1;
    if (peer < 0 || peer == stage) continue;
    const auto& owners = (side.send ? makesFor : needsFrom)[peer];
    size_t& n = seen[{side.send, peer}];
    if (n >= owners.size()) continue;
    const CommKernel& ck = ops.commKernels[mine.kernel];
    // A send carries what an op made, so it starts after that op's work ended: one that starts
    // before the n-th such op ended carries the output of an op the trace does not hold (a
    // capture window that opened after it, with the send's kernel inside).
    if (side.send && ck.start < owners[n]->end) continue;
    const RecognizedOp* owner = owners[n++];
    RecognizedComm c;
    c.send = side.send;
    c.pass = owner->op.kind == OpKind::F ? OpKind::F : OpKind::B;
    c.mb = owner->op.mb;
    c.chunk = owner->op.chunk;
    c.peer = peer;
    c.start = ck.start;
    c.end = ck.end;
    c.step = owner->step;
    c.onDevice = true;
    c.launch = ck.launch;
    added.push_back(c);
  }
  ops.comms.insert(ops.comms.end(), added.begin(), added.end());
  std::stable_sort(
      ops.comms.begin(), ops.comms.end(),
      [](const RecognizedComm& a, const RecognizedComm& b) { return a.start < b.start; });
}

}  // namespace bubblescope::analysis
