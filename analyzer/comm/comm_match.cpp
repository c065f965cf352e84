#include "analyzer/comm/comm_match.h"

#include <algorithm>
#include <map>
#include <queue>
#include <set>
#include <tuple>

namespace bubblescope::analysis {
namespace {

using traces::NcclOp;

// One NCCL call, with what the call says.
struct Entry {  // 56 bytes, no padding: one per call of the run is held while matching
  CallRef ref;
  uint64_t comm = 0;
  uint64_t seq = 0;
  TimeNs posted = 0;  // the call's host start: NCCL matches in posting order
  int32_t peer = -1, commRank = -1, commSize = -1;
  int32_t assigned = -1;  // the global peer given to a call that names none
  NcclOp op = NcclOp::Unknown;
};

// (communicator, rank in it) -> global rank, and each communicator's traced members.
struct Membership {
  std::map<std::pair<uint64_t, int32_t>, int> global;
  std::map<uint64_t, std::set<int>> members;

  int peerOf(const Entry& e, int self) const {
    if (e.commRank >= 0) {
      auto it = global.find({e.comm, e.peer});
      return it == global.end() ? -1 : it->second;
    }
    if (auto m = members.find(e.comm); m != members.end() && m->second.size() == 2) {
      return *m->second.begin() == self ? *m->second.rbegin() : *m->second.begin();
    }
    return e.peer;
  }
};

// How many of a communicator's members the run traced, when it holds more (of = 0 otherwise):
// its size is what its calls say, else the job's world size, which a run of every rank of the
// world holds whole (a sub-group whose calls give no size is then not taken for a partial one).
TracedMembers tracedOf(int traced, int size, int world, size_t runRanks) {
  if (size <= 0) size = static_cast<size_t>(std::max(world, 0)) > runRanks ? world : 0;
  return {traced, size > traced ? size : 0};
}

}  // namespace

std::vector<int> globalRanks(const traces::Run& run) {
  std::vector<int> g(run.ranks.size());
  for (size_t i = 0; i < run.ranks.size(); ++i) {
    g[i] = run.ranks[i].meta.rank >= 0 ? run.ranks[i].meta.rank : static_cast<int>(i);
  }
  return g;
}

CallMatches matchCalls(const traces::Run& run, const std::vector<std::vector<int32_t>>& calls,
                       const AssignedPeers* assigned) {
  CallMatches out;
  const std::vector<int> global = globalRanks(run);
  std::map<int, uint32_t> indexOfGlobal;
  for (size_t i = 0; i < global.size(); ++i)
    indexOfGlobal.emplace(global[i], static_cast<uint32_t>(i));

  // A communicator whose size no call gives holds, for all the traces know, the whole job.
  int world = 0;
  for (const auto& t : run.ranks) world = std::max(world, t.meta.worldSize);
  std::vector<Entry> entries;
  size_t total = 0;
  for (const auto& list : calls) total += list.size();
  entries.reserve(total);
  Membership members;
  for (size_t r = 0; r < calls.size() && r < run.ranks.size(); ++r) {
    const auto& nc = *run.ranks[r].ncclCalls;
    for (const int32_t c : calls[r]) {
      if (c < 0 || static_cast<size_t>(c) >= nc.size()) continue;
      Entry e;
      e.ref = {static_cast<uint32_t>(r), c};
      e.op = nc.op[c];
      e.comm = nc.comm[c];
      e.peer = nc.peer[c];
      e.commRank = nc.commRank[c];
      e.commSize = nc.commSize[c];
      e.seq = nc.seq[c];
      e.posted = nc.start[c];
      if (!traces::movesData(e.op)) continue;
      if (assigned && e.peer < 0 && r < assigned->size() &&
          static_cast<size_t>(c) < (*assigned)[r].size()) {
        e.assigned = (*assigned)[r][c];
      }
      members.members[e.comm].insert(global[r]);
      if (e.commRank >= 0) members.global.emplace(std::pair{e.comm, e.commRank}, global[r]);
      entries.push_back(e);
    }
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.posted != b.posted ? a.posted < b.posted : a.ref.call < b.ref.call;
  });

  // Point to point: per (communicator, from, to), the n-th send with the n-th receive.
  std::map<std::tuple<uint64_t, int, int>, std::vector<const Entry*>> sends, recvs;
  // Collectives: per communicator and member, in order.
  std::map<uint64_t, std::map<int, std::vector<const Entry*>>> colls;
  for (const Entry& e : entries) {
    const int self = global[e.ref.rank];
    if (traces::isPointToPoint(e.op)) {
      const int peer = e.assigned >= 0 ? e.assigned : members.peerOf(e, self);
      if (peer < 0 || !indexOfGlobal.count(peer)) {
        out.p2pLeft.push_back(e.ref);
        continue;
      }
      if (e.op == NcclOp::Send) {
        sends[{e.comm, self, peer}].push_back(&e);
      } else {
        recvs[{e.comm, peer, self}].push_back(&e);
      }
    } else {
      colls[e.comm][self].push_back(&e);
    }
  }
  for (auto& [key, list] : sends) {
    auto it = recvs.find(key);
    const size_t n = it == recvs.end() ? 0 : std::min(list.size(), it->second.size());
    for (size_t i = 0; i < n; ++i) out.p2p.push_back({list[i]->ref, it->second[i]->ref});
    for (size_t i = n; i < list.size(); ++i) out.p2pLeft.push_back(list[i]->ref);
    if (it != recvs.end()) {
      for (size_t i = n; i < it->second.size(); ++i) out.p2pLeft.push_back(it->second[i]->ref);
      recvs.erase(it);
    }
  }
  for (const auto& [key, list] : recvs) {
    for (const Entry* e : list) out.p2pLeft.push_back(e->ref);
  }
  // Those that named no peer (given one by posting order or not) say why they are left.
  for (const CallRef& c : out.p2pLeft) {
    out.p2pWithoutPeer += run.ranks[c.rank].ncclCalls->peer[c.call] < 0;
  }

  for (auto& [comm, byMember] : colls) {
    int size = 0;
    bool allSeq = true;
    for (auto& [member, list] : byMember) {
      for (const Entry* e : list) {
        size = std::max(size, static_cast<int>(e->commSize));
        allSeq = allSeq && e->seq > 0;
      }
    }
    if (allSeq) {
      for (auto& [member, list] : byMember) {
        std::stable_sort(list.begin(), list.end(),
                         [](const Entry* a, const Entry* b) { return a->seq < b->seq; });
      }
    }
    // A member not in the run: nobody knows when it joined, so the traced members are matched
    // among themselves (what they waited for each other), their collectives marked partial; one
    // traced member alone waited for nobody the run holds.
    const TracedMembers partial =
        tracedOf(static_cast<int>(byMember.size()), size, world, run.ranks.size());
    size_t n = SIZE_MAX;
    for (const auto& [member, list] : byMember) n = std::min(n, list.size());
    if (partial.partial() && partial.traced < 2) n = 0;
    for (size_t i = 0; i < n; ++i) {
      std::vector<CallRef> refs;
      const Entry* first = byMember.begin()->second[i];
      bool agree = true;
      for (const auto& [member, list] : byMember) {
        agree = agree && list[i]->op == first->op && (!allSeq || list[i]->seq == first->seq);
        refs.push_back(list[i]->ref);
      }
      if (!agree) {
        out.collectiveLeft.insert(out.collectiveLeft.end(), refs.begin(), refs.end());
        out.collectiveDisagree.push_back(std::move(refs));
        continue;
      }
      out.collectives.push_back(std::move(refs));
      out.collectiveMembers.push_back(partial);
    }
    for (const auto& [member, list] : byMember) {
      for (size_t i = std::min(n, list.size()); i < list.size(); ++i) {
        out.collectiveLeft.push_back(list[i]->ref);
      }
    }
  }
  return out;
}

CommMatches matchComms(const traces::Run& run, const std::vector<RankOps>& ops,
                       const AssignedPeers* assigned) {
  CommMatches out;
  // The calls each kernel ran, and the kernel of each call.
  std::vector<std::vector<int32_t>> calls(ops.size());
  // kernelOf[rank][call]: the first kernel that ran the call (kNone: none). A flat column per
  // rank, where a map held a 64-byte node per call while the whole run was still in memory.
  constexpr uint32_t kNone = UINT32_MAX;
  std::vector<std::vector<uint32_t>> kernelOf(ops.size());
  out.collective.resize(ops.size());
  for (size_t r = 0; r < ops.size(); ++r) {
    const auto& nc = *run.ranks[r].ncclCalls;
    kernelOf[r].assign(nc.size(), kNone);
    out.collective[r].assign(ops[r].commKernels.size(), false);
    for (size_t k = 0; k < ops[r].commKernels.size(); ++k) {
      const CommKernel& ck = ops[r].commKernels[k];
      if (ck.callBegin == ck.callEnd) ++out.withoutCall;
      for (uint32_t j = ck.callBegin; j < ck.callEnd; ++j) {
        const int32_t c = ops[r].commCalls[j];
        if (c < 0 || static_cast<size_t>(c) >= nc.size()) continue;
        if (kernelOf[r][c] != kNone) continue;
        kernelOf[r][c] = static_cast<uint32_t>(k);
        calls[r].push_back(c);
      }
    }
  }
  const CallMatches cm = matchCalls(run, calls, assigned);
  // Every call matched is one of `calls`, so it has its kernel.
  auto kernel = [&](const CallRef& c) {
    return KernelRef{c.rank, kernelOf[c.rank][static_cast<size_t>(c.call)]};
  };
  auto posted = [&](const CallRef& c) { return run.ranks[c.rank].ncclCalls->start[c.call]; };
  out.p2p.reserve(cm.p2p.size());
  std::vector<std::pair<KernelRef, KernelRef>> waits;  // (a kernel, one it waited for)
  waits.reserve(2 * cm.p2p.size());
  for (const auto& [s, r] : cm.p2p) {
    // Only a peer given by posting order matches a call that names none.
    const bool byOrder = run.ranks[s.rank].ncclCalls->peer[s.call] < 0;
    out.p2p.push_back({kernel(s), kernel(r), s.call, r.call, posted(s), posted(r), byOrder});
    if (byOrder) out.p2pByPostingOrder += 2;
    waits.emplace_back(kernel(s), kernel(r));
    waits.emplace_back(kernel(r), kernel(s));
  }
  out.collectiveMembers = cm.collectiveMembers;
  for (const auto& members : cm.collectives) {
    std::vector<KernelRef> refs;
    for (const CallRef& c : members) refs.push_back(kernel(c));
    for (const KernelRef& a : refs) {
      out.collective[a.rank][a.kernel] = true;
      for (const KernelRef& b : refs) {
        if (!(a == b)) waits.emplace_back(a, b);
      }
    }
    out.collectives.push_back(std::move(refs));
  }
  std::vector<size_t> kernelsOfRank;
  for (const RankOps& o : ops) kernelsOfRank.push_back(o.commKernels.size());
  out.partners = KernelPartners(std::move(waits), kernelsOfRank);
  out.p2pUnmatched = static_cast<int>(cm.p2pLeft.size());
  out.p2pWithoutPeer = static_cast<int>(cm.p2pWithoutPeer);
  out.collectiveUnmatched = static_cast<int>(cm.collectiveLeft.size());
  return out;
}

std::vector<TimeNs> clockOffsetsFromComms(const CommMatches& matches,
                                          const std::vector<RankOps>& ops) {
  if (matches.empty()) return {};
  // deltas[{a, b}]: end_a - end_b per matched pair of kernels: what b's clock lags a's by.
  std::map<std::pair<uint32_t, uint32_t>, std::vector<TimeNs>> deltas;
  for (size_t r = 0; r < matches.partners.ranks(); ++r) {
    for (size_t k = 0; k < matches.partners.kernels(r); ++k) {
      for (const KernelRef& b : matches.partners.of(r, k)) {
        if (b.rank == r) continue;
        deltas[{static_cast<uint32_t>(r), b.rank}].push_back(ops[r].commKernels[k].end -
                                                             ops[b.rank].commKernels[b.kernel].end);
      }
    }
  }
  std::map<uint32_t, std::vector<std::pair<uint32_t, TimeNs>>> edges;
  for (auto& [key, list] : deltas) {
    std::nth_element(list.begin(), list.begin() + list.size() / 2, list.end());
    edges[key.first].push_back({key.second, list[list.size() / 2]});
  }
  std::vector<TimeNs> offsets(ops.size(), 0);
  std::vector<bool> seen(ops.size(), false);
  for (uint32_t root = 0; root < ops.size(); ++root) {
    if (seen[root]) continue;
    seen[root] = true;
    std::queue<uint32_t> todo;
    todo.push(root);
    while (!todo.empty()) {
      const uint32_t a = todo.front();
      todo.pop();
      for (const auto& [b, d] : edges[a]) {
        if (seen[b]) continue;
        seen[b] = true;
        offsets[b] = offsets[a] + d;
        todo.push(b);
      }
    }
  }
  return offsets;
}

void splitCommKernels(const CommMatches& matches, std::vector<RankOps>& ops) {
  for (size_t r = 0; r < matches.partners.ranks(); ++r) {
    for (size_t k = 0; k < matches.partners.kernels(r); ++k) {
      const auto partners = matches.partners.of(r, k);
      if (partners.empty()) continue;
      CommKernel& ck = ops[r].commKernels[k];
      // Data moves once the first peer is there too (every member, for a collective: its
      // partners are all the others, and the last of them to start is what it waits for).
      TimeNs first = INT64_MAX, last = INT64_MIN;
      for (const KernelRef& p : partners) {
        const TimeNs s = ops[p.rank].commKernels[p.kernel].start;
        first = std::min(first, s);
        last = std::max(last, s);
      }
      TimeNs joined = matches.collective[r][k] ? last : first;
      // A send that ended before its receiver began did not wait for it: NCCL buffered the
      // message (it fits the peer's FIFO), so the kernel moved data from its start.
      if (!matches.collective[r][k] && ck.end <= first) joined = ck.start;
      ck.transferStart = std::min(std::max(ck.start, joined), ck.end);
      ck.matched = true;
    }
  }
  for (size_t c = 0; c < matches.collectives.size() && c < matches.collectiveMembers.size(); ++c) {
    if (!matches.collectiveMembers[c].partial()) continue;
    for (const KernelRef& k : matches.collectives[c]) {
      ops[k.rank].commKernels[k.kernel].members = matches.collectiveMembers[c];
    }
  }
}

}  // namespace bubblescope::analysis
