#include "analyzer/comm/comm_match.h"

#include <algorithm>
#include <map>
#include <queue>
#include <set>
#include <tuple>
#include <utility>

namespace bubblescope::analysis {
namespace {

using traces::NcclOp;

// One NCCL call in posting order: 16 bytes a call of the run held while matching, where a copy of
// what the call says took 56 (the trace's columns hold it already; a 64-rank comm-heavy job has
// millions of calls, all on MPI rank 0 while it plans).
struct Posted {
  TimeNs posted = 0;  // the call's host start: NCCL matches in posting order
  CallRef ref;
};

// How many of a communicator's members the run traced, when it holds more (of = 0 otherwise):
// its size is what its calls say, else the job's world size, which a run of every rank of the
// world holds whole (a sub-group whose calls give no size is then not taken for a partial one).
TracedMembers tracedOf(int traced, int size, int world, size_t runRanks) {
  if (size <= 0) size = static_cast<size_t>(std::max(world, 0)) > runRanks ? world : 0;
  return {traced, size > traced ? size : 0};
}

}  // namespace

int CommMembers::peerOf(uint64_t comm, int32_t commRank, int32_t peer, int self) const {
  if (commRank >= 0) {
    auto it = global.find({comm, peer});
    return it == global.end() ? -1 : it->second;
  }
  if (auto m = members.find(comm); m != members.end() && m->second.size() == 2) {
    return *m->second.begin() == self ? *m->second.rbegin() : *m->second.begin();
  }
  return peer;
}

std::vector<int> globalRanks(const traces::Run& run) {
  std::vector<int> g(run.ranks.size());
  for (size_t i = 0; i < run.ranks.size(); ++i) {
    g[i] = run.ranks[i].meta.rank >= 0 ? run.ranks[i].meta.rank : static_cast<int>(i);
  }
  return g;
}

CallMatches matchCalls(const traces::Run& run, const std::vector<std::vector<int32_t>>& calls,
                       const AssignedPeers* assigned, const CommMembers* claimed) {
  CallMatches out;
  const std::vector<int> global = globalRanks(run);
  std::map<int, uint32_t> indexOfGlobal;
  for (size_t i = 0; i < global.size(); ++i)
    indexOfGlobal.emplace(global[i], static_cast<uint32_t>(i));
  auto callsOf = [&](const CallRef& c) -> const traces::NcclCalls& {
    return *run.ranks[c.rank].ncclCalls;
  };

  // A communicator whose size no call gives holds, for all the traces know, the whole job.
  int world = 0;
  for (const auto& t : run.ranks) world = std::max(world, t.meta.worldSize);
  std::vector<Posted> posted;
  size_t total = 0;
  for (const auto& list : calls) total += list.size();
  posted.reserve(total);
  CommMembers members;
  for (size_t r = 0; r < calls.size() && r < run.ranks.size(); ++r) {
    const auto& nc = *run.ranks[r].ncclCalls;
    for (const int32_t c : calls[r]) {
      if (c < 0 || static_cast<size_t>(c) >= nc.size()) continue;
      if (!traces::movesData(nc.op[c])) continue;
      posted.push_back({nc.start[c], {static_cast<uint32_t>(r), c}});
      if (claimed && claimed->members.count(nc.comm[c])) continue;  // its members as given
      members.members[nc.comm[c]].insert(global[r]);
      if (nc.commRank[c] >= 0)
        members.global.emplace(std::pair{nc.comm[c], nc.commRank[c]}, global[r]);
    }
  }
  if (claimed) {
    members.members.insert(claimed->members.begin(), claimed->members.end());
    members.global.insert(claimed->global.begin(), claimed->global.end());
  }
  // Equal starts keep their call order, then their rank's (the lists below hold one rank each).
  std::sort(posted.begin(), posted.end(), [](const Posted& a, const Posted& b) {
    return std::tie(a.posted, a.ref.call, a.ref.rank) < std::tie(b.posted, b.ref.call, b.ref.rank);
  });

  // Point to point: per (communicator, from, to), the n-th send with the n-th receive.
  std::map<std::tuple<uint64_t, int, int>, std::vector<CallRef>> sends, recvs;
  // Collectives: per communicator and member, in order.
  std::map<uint64_t, std::map<int, std::vector<CallRef>>> colls;
  for (const Posted& p : posted) {
    const CallRef& ref = p.ref;
    const auto& nc = callsOf(ref);
    const auto c = static_cast<size_t>(ref.call);
    const int self = global[ref.rank];
    if (traces::isPointToPoint(nc.op[c])) {
      int32_t given = -1;  // the global peer given to a call that names none
      if (assigned && nc.peer[c] < 0 && ref.rank < assigned->size() &&
          c < (*assigned)[ref.rank].size()) {
        given = (*assigned)[ref.rank][c];
      }
      const int peer =
          given >= 0 ? given : members.peerOf(nc.comm[c], nc.commRank[c], nc.peer[c], self);
      if (peer < 0 || !indexOfGlobal.count(peer)) {
        out.p2pLeft.push_back(ref);
        continue;
      }
      if (nc.op[c] == NcclOp::Send) {
        sends[{nc.comm[c], self, peer}].push_back(ref);
      } else {
        recvs[{nc.comm[c], peer, self}].push_back(ref);
      }
    } else {
      colls[nc.comm[c]][self].push_back(ref);
    }
  }
  std::vector<Posted>().swap(posted);
  for (auto& [key, list] : sends) {
    auto it = recvs.find(key);
    const size_t n = it == recvs.end() ? 0 : std::min(list.size(), it->second.size());
    for (size_t i = 0; i < n; ++i) out.p2p.push_back({list[i], it->second[i]});
    for (size_t i = n; i < list.size(); ++i) out.p2pLeft.push_back(list[i]);
    if (it != recvs.end()) {
      for (size_t i = n; i < it->second.size(); ++i) out.p2pLeft.push_back(it->second[i]);
      recvs.erase(it);
    }
  }
  for (const auto& [key, list] : recvs) {
    for (const CallRef& ref : list) out.p2pLeft.push_back(ref);
  }
  // Those that named no peer (given one by posting order or not) say why they are left.
  for (const CallRef& c : out.p2pLeft) {
    out.p2pWithoutPeer += run.ranks[c.rank].ncclCalls->peer[c.call] < 0;
  }

  auto seqOf = [&](const CallRef& c) { return callsOf(c).seq[static_cast<size_t>(c.call)]; };
  auto opOf = [&](const CallRef& c) { return callsOf(c).op[static_cast<size_t>(c.call)]; };
  for (auto& [comm, byMember] : colls) {
    int size = 0;
    bool allSeq = true;
    for (auto& [member, list] : byMember) {
      for (const CallRef& ref : list) {
        size =
            std::max(size, static_cast<int>(callsOf(ref).commSize[static_cast<size_t>(ref.call)]));
        allSeq = allSeq && seqOf(ref) > 0;
      }
    }
    if (allSeq) {
      for (auto& [member, list] : byMember) {
        std::stable_sort(list.begin(), list.end(),
                         [&](const CallRef& a, const CallRef& b) { return seqOf(a) < seqOf(b); });
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
      const CallRef& first = byMember.begin()->second[i];
      bool agree = true;
      for (const auto& [member, list] : byMember) {
        agree =
            agree && opOf(list[i]) == opOf(first) && (!allSeq || seqOf(list[i]) == seqOf(first));
        refs.push_back(list[i]);
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
        out.collectiveLeft.push_back(list[i]);
      }
    }
  }
  return out;
}

namespace {

CommMatches matchScoped(const traces::Run& run, const std::vector<RankOps>& ops,
                        const AssignedPeers* assigned, const MatchScope* scope) {
  CommMatches out;
  // The calls each kernel ran, and the kernel of each call.
  std::vector<std::vector<int32_t>> calls(ops.size());
  // kernelOf[rank][call]: the first kernel that ran the call (kNone: none). A flat column per
  // rank, where a map held a 64-byte node per call while the whole run was still in memory.
  constexpr uint32_t kNone = UINT32_MAX;
  std::vector<std::vector<uint32_t>> kernelOf(ops.size());
  out.collective.resize(ops.size());
  for (size_t r = 0; r < ops.size(); ++r) {
    out.collective[r].assign(ops[r].commKernels.size(), false);
    if (scope && !scope->inScope.empty() && !scope->inScope[r]) continue;
    const std::vector<bool>* keep =
        scope && r < scope->keep.size() && !scope->keep[r].empty() ? &scope->keep[r] : nullptr;
    const auto& nc = *run.ranks[r].ncclCalls;
    kernelOf[r].assign(nc.size(), kNone);
    for (size_t k = 0; k < ops[r].commKernels.size(); ++k) {
      const CommKernel& ck = ops[r].commKernels[k];
      if (ck.callBegin == ck.callEnd) ++out.withoutCall;
      for (uint32_t j = ck.callBegin; j < ck.callEnd; ++j) {
        const int32_t c = ops[r].commCalls[j];
        if (c < 0 || static_cast<size_t>(c) >= nc.size()) continue;
        if (kernelOf[r][c] != kNone) continue;
        if (keep && (static_cast<size_t>(c) >= keep->size() || !(*keep)[c])) continue;
        kernelOf[r][c] = static_cast<uint32_t>(k);
        calls[r].push_back(c);
      }
    }
  }
  CallMatches cm = matchCalls(run, calls, assigned, scope ? scope->given : nullptr);
  std::vector<std::vector<int32_t>>().swap(calls);
  // Every call matched is one of `calls`, so it has its kernel.
  auto kernel = [&](const CallRef& c) {
    return KernelRef{c.rank, kernelOf[c.rank][static_cast<size_t>(c.call)]};
  };
  auto posted = [&](const CallRef& c) { return run.ranks[c.rank].ncclCalls->start[c.call]; };
  out.p2p.reserve(cm.p2p.size());
  std::vector<std::pair<KernelRef, KernelRef>> waits;  // (a kernel, one it waited for)
  // Each p2p's two sides, and each collective's members each with every other: reserved whole,
  // since growing would hold the list twice (and more) at once.
  size_t waitCount = 2 * cm.p2p.size();
  for (const auto& members : cm.collectives) waitCount += members.size() * (members.size() - 1);
  waits.reserve(waitCount);
  for (const auto& [s, r] : cm.p2p) {
    // Only a peer given by posting order matches a call that names none.
    const bool byOrder = run.ranks[s.rank].ncclCalls->peer[s.call] < 0;
    out.p2p.push_back({kernel(s), kernel(r), s.call, r.call, posted(s), posted(r), byOrder});
    if (byOrder) out.p2pByPostingOrder += 2;
    waits.emplace_back(kernel(s), kernel(r));
    waits.emplace_back(kernel(r), kernel(s));
  }
  out.collectiveMembers = std::move(cm.collectiveMembers);
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
  out.p2pUnmatched = static_cast<int>(cm.p2pLeft.size());
  out.p2pWithoutPeer = static_cast<int>(cm.p2pWithoutPeer);
  out.collectiveUnmatched = static_cast<int>(cm.collectiveLeft.size());
  // The calls' matches and each call's kernel are read no more: freed before the partners are
  // laid out beside the waits they come from (the peak of matching a comm-heavy job).
  cm = CallMatches{};
  std::vector<std::vector<uint32_t>>().swap(kernelOf);
  std::vector<size_t> kernelsOfRank;
  for (const RankOps& o : ops) kernelsOfRank.push_back(o.commKernels.size());
  out.partners = KernelPartners(std::move(waits), kernelsOfRank);
  return out;
}

}  // namespace

CommMatches matchComms(const traces::Run& run, const std::vector<RankOps>& ops,
                       const AssignedPeers* assigned) {
  return matchScoped(run, ops, assigned, nullptr);
}

CommMatches matchCommsIn(const traces::Run& run, const std::vector<RankOps>& ops,
                         const MatchScope& scope) {
  return matchScoped(run, ops, nullptr, &scope);
}

PairDeltas pairDeltas(const CommMatches& matches, const std::vector<RankOps>& ops) {
  PairDeltas deltas;
  for (size_t r = 0; r < matches.partners.ranks(); ++r) {
    for (size_t k = 0; k < matches.partners.kernels(r); ++k) {
      for (const KernelRef& b : matches.partners.of(r, k)) {
        if (b.rank == r) continue;
        deltas[{static_cast<uint32_t>(r), b.rank}].push_back(ops[r].commKernels[k].end -
                                                             ops[b.rank].commKernels[b.kernel].end);
      }
    }
  }
  return deltas;
}

TimeNs medianOf(std::vector<TimeNs>& deltas) {
  std::nth_element(deltas.begin(), deltas.begin() + deltas.size() / 2, deltas.end());
  return deltas[deltas.size() / 2];
}

PairMedians pairMedians(const CommMatches& matches, const std::vector<RankOps>& ops) {
  PairMedians out;
  for (auto& [key, list] : pairDeltas(matches, ops))
    out.emplace_hint(out.end(), key, medianOf(list));
  return out;
}

std::vector<TimeNs> chainOffsets(const PairMedians& medians, size_t ranks) {
  std::map<uint32_t, std::vector<std::pair<uint32_t, TimeNs>>> edges;
  for (const auto& [key, median] : medians) edges[key.first].push_back({key.second, median});
  std::vector<TimeNs> offsets(ranks, 0);
  std::vector<bool> seen(ranks, false);
  for (uint32_t root = 0; root < ranks; ++root) {
    if (seen[root]) continue;
    seen[root] = true;
    std::queue<uint32_t> todo;
    todo.push(root);
    while (!todo.empty()) {
      const uint32_t a = todo.front();
      todo.pop();
      for (const auto& [b, d] : edges[a]) {
        if (b >= ranks || seen[b]) continue;
        seen[b] = true;
        offsets[b] = offsets[a] + d;
        todo.push(b);
      }
    }
  }
  return offsets;
}

std::vector<TimeNs> clockOffsetsFromComms(const CommMatches& matches,
                                          const std::vector<RankOps>& ops) {
  if (matches.empty()) return {};
  return chainOffsets(pairMedians(matches, ops), ops.size());
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
