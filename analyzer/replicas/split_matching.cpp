#include "analyzer/replicas/split_matching.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "analyzer/comm/comm_warnings.h"
#include "analyzer/pipeline/clock_align.h"

namespace bubblescope::analysis {
namespace {

// The data-moving calls a rank's kernels ran, each once, as matchComms() takes them: calls[k] of
// kernel k, every call with the first kernel that ran it.
std::vector<std::vector<int32_t>> callsByKernel(const traces::RankTrace& kept, const RankOps& ops) {
  const traces::NcclCalls& nc = *kept.ncclCalls;
  std::vector<bool> taken(nc.size(), false);
  std::vector<std::vector<int32_t>> out(ops.commKernels.size());
  for (size_t k = 0; k < ops.commKernels.size(); ++k) {
    const CommKernel& ck = ops.commKernels[k];
    for (uint32_t j = ck.callBegin; j < ck.callEnd && j < ops.commCalls.size(); ++j) {
      const int32_t c = ops.commCalls[j];
      if (c < 0 || static_cast<size_t>(c) >= nc.size() || taken[static_cast<size_t>(c)]) continue;
      taken[static_cast<size_t>(c)] = true;
      if (traces::movesData(nc.op[static_cast<size_t>(c)])) out[k].push_back(c);
    }
  }
  return out;
}

bool holds(const std::vector<uint64_t>& sorted, uint64_t comm) {
  return std::binary_search(sorted.begin(), sorted.end(), comm);
}

}  // namespace

CommRoster rosterOf(const traces::RankTrace& kept, const RankOps& ops) {
  CommRoster out;
  const traces::NcclCalls& nc = *kept.ncclCalls;
  for (size_t c = 0; c < nc.size(); ++c) {
    if (traces::isPointToPoint(nc.op[c]) && nc.peer[c] < 0) out.unnamedP2p = true;
  }
  std::set<uint64_t> comms;
  std::set<CommRoster::Claim> claims;
  for (const std::vector<int32_t>& calls : callsByKernel(kept, ops)) {
    for (const int32_t c : calls) {
      const auto i = static_cast<size_t>(c);
      comms.insert(nc.comm[i]);
      if (nc.commRank[i] >= 0) claims.insert({nc.comm[i], nc.commRank[i]});
    }
  }
  out.comms.assign(comms.begin(), comms.end());
  out.claims.assign(claims.begin(), claims.end());
  return out;
}

void encodeCommRoster(const CommRoster& r, traces::ByteWriter& out) {
  out.column(r.comms);
  out.column(r.claims);
  out.value(r.unnamedP2p);
}

CommRoster decodeCommRoster(traces::ByteReader& in) {
  CommRoster r;
  in.column(r.comms);
  in.column(r.claims);
  r.unnamedP2p = in.value<bool>();
  return r;
}

SpanningComms spanningComms(const std::vector<CommRoster>& rosters,
                            const std::vector<int>& replicaOf, const std::vector<int>& global) {
  // Each communicator's ranks; a rank of no replica is a replica of its own.
  std::map<uint64_t, std::vector<uint32_t>> ranksOn;
  for (size_t r = 0; r < rosters.size(); ++r) {
    for (const uint64_t c : rosters[r].comms) ranksOn[c].push_back(static_cast<uint32_t>(r));
  }
  auto replica = [&](uint32_t r) -> int64_t {
    const int d = r < replicaOf.size() ? replicaOf[r] : -1;
    return d >= 0 ? d : -1 - static_cast<int64_t>(r);
  };
  SpanningComms out;
  for (const auto& [comm, ranks] : ranksOn) {
    const bool spans = std::any_of(ranks.begin(), ranks.end(), [&](uint32_t r) {
      return replica(r) != replica(ranks.front());
    });
    if (!spans) continue;
    out.ids.push_back(comm);
    std::set<int>& members = out.members.members[comm];
    for (const uint32_t r : ranks) members.insert(global.at(r));
  }
  // As matchCalls() claims them: the first rank in run order to name itself a rank wins it.
  for (size_t r = 0; r < rosters.size(); ++r) {
    for (const CommRoster::Claim& c : rosters[r].claims) {
      if (holds(out.ids, c.comm))
        out.members.global.emplace(std::pair{c.comm, c.commRank}, global.at(r));
    }
  }
  return out;
}

namespace {

struct Member {
  uint64_t comm;
  int32_t global;
};

}  // namespace

void encodeSpanningComms(const SpanningComms& s, traces::ByteWriter& out) {
  out.column(s.ids);
  struct Claimed {
    uint64_t comm;
    int32_t commRank, global;
  };
  std::vector<Claimed> claimed;
  for (const auto& [key, g] : s.members.global) claimed.push_back({key.first, key.second, g});
  out.column(claimed);
  std::vector<Member> members;
  for (const auto& [comm, set] : s.members.members) {
    for (const int g : set) members.push_back({comm, g});
  }
  out.column(members);
}

SpanningComms decodeSpanningComms(traces::ByteReader& in) {
  SpanningComms s;
  in.column(s.ids);
  struct Claimed {
    uint64_t comm;
    int32_t commRank, global;
  };
  std::vector<Claimed> claimed;
  in.column(claimed);
  for (const Claimed& c : claimed)
    s.members.global.emplace(std::pair{c.comm, c.commRank}, c.global);
  std::vector<Member> members;
  in.column(members);
  for (const Member& m : members) s.members.members[m.comm].insert(m.global);
  if (!std::is_sorted(s.ids.begin(), s.ids.end())) {
    throw std::runtime_error("spanning communicators out of order");
  }
  return s;
}

MatchScope ownerScope(const traces::Run& run, const std::vector<RankOps>& ops,
                      const std::vector<uint32_t>& ranks, const SpanningComms& spanning) {
  MatchScope scope;
  scope.given = &spanning.members;
  scope.inScope.assign(run.ranks.size(), false);
  for (const uint32_t r : ranks) {
    if (r >= run.ranks.size() || r >= ops.size()) {
      throw std::invalid_argument("a replica's rank outside the run");
    }
    scope.inScope[r] = true;
  }
  const std::vector<int> global = globalRanks(run);
  std::map<int, uint32_t> indexOfGlobal;  // as matchCalls() reads a peer: the first rank of it
  for (size_t i = 0; i < global.size(); ++i)
    indexOfGlobal.emplace(global[i], static_cast<uint32_t>(i));
  scope.keep.resize(run.ranks.size());
  bool mixed = false;
  for (const uint32_t r : ranks) {
    const traces::NcclCalls& nc = *run.ranks[r].ncclCalls;
    std::vector<bool>& keep = scope.keep[r];
    keep.assign(nc.size(), false);
    for (const std::vector<int32_t>& calls : callsByKernel(run.ranks[r], ops[r])) {
      bool here = false, away = false;
      for (const int32_t c : calls) {
        const auto i = static_cast<size_t>(c);
        bool mine = true;
        if (holds(spanning.ids, nc.comm[i])) {
          if (!traces::isPointToPoint(nc.op[i])) {
            mine = false;
          } else {
            const int peer =
                spanning.members.peerOf(nc.comm[i], nc.commRank[i], nc.peer[i], global[r]);
            const auto it = indexOfGlobal.find(peer);
            mine = peer >= 0 && it != indexOfGlobal.end() && scope.inScope[it->second];
          }
        }
        keep[i] = mine;
        here = here || mine;
        away = away || !mine;
      }
      mixed = mixed || (here && away);
    }
  }
  if (mixed) {
    for (const uint32_t r : ranks) std::fill(scope.keep[r].begin(), scope.keep[r].end(), false);
  }
  return scope;
}

SpanningCalls spanningCallsOf(uint32_t rank, const traces::RankTrace& kept, const RankOps& ops,
                              const std::vector<bool>& keep) {
  SpanningCalls out;
  out.rank = rank;
  const traces::NcclCalls& nc = *kept.ncclCalls;
  const std::vector<std::vector<int32_t>> byKernel = callsByKernel(kept, ops);
  for (size_t k = 0; k < byKernel.size(); ++k) {
    CommKernel ck = ops.commKernels[k];
    ck.callBegin = static_cast<uint32_t>(out.commCalls.size());
    for (const int32_t c : byKernel[k]) {
      const auto i = static_cast<size_t>(c);
      if (keep.empty() || (i < keep.size() && keep[i])) continue;  // its owner matches it
      out.commCalls.push_back(static_cast<int32_t>(out.callIndex.size()));
      out.callIndex.push_back(c);
      out.calls.start.push_back(nc.start[i]);
      out.calls.op.push_back(nc.op[i]);
      out.calls.peer.push_back(nc.peer[i]);
      out.calls.comm.push_back(nc.comm[i]);
      out.calls.commRank.push_back(nc.commRank[i]);
      out.calls.commSize.push_back(nc.commSize[i]);
      out.calls.seq.push_back(nc.seq[i]);
    }
    ck.callEnd = static_cast<uint32_t>(out.commCalls.size());
    if (ck.callBegin == ck.callEnd) continue;
    out.kernels.push_back(ck);
    out.kernelIndex.push_back(static_cast<uint32_t>(k));
  }
  return out;
}

void encodeSpanningCalls(const SpanningCalls& s, traces::ByteWriter& out) {
  out.value(s.rank);
  out.column(s.calls.start);
  out.column(s.calls.op);
  out.column(s.calls.peer);
  out.column(s.calls.comm);
  out.column(s.calls.commRank);
  out.column(s.calls.commSize);
  out.column(s.calls.seq);
  out.column(s.callIndex);
  out.column(s.kernels);
  out.column(s.commCalls);
  out.column(s.kernelIndex);
}

SpanningCalls decodeSpanningCalls(traces::ByteReader& in) {
  SpanningCalls s;
  s.rank = in.value<uint32_t>();
  in.column(s.calls.start);
  in.column(s.calls.op);
  in.column(s.calls.peer);
  in.column(s.calls.comm);
  in.column(s.calls.commRank);
  in.column(s.calls.commSize);
  in.column(s.calls.seq);
  in.column(s.callIndex);
  in.column(s.kernels);
  in.column(s.commCalls);
  in.column(s.kernelIndex);
  const size_t n = s.calls.start.size();
  bool ok = s.calls.op.size() == n && s.calls.peer.size() == n && s.calls.comm.size() == n &&
            s.calls.commRank.size() == n && s.calls.commSize.size() == n &&
            s.calls.seq.size() == n && s.callIndex.size() == n &&
            s.kernelIndex.size() == s.kernels.size();
  for (const CommKernel& k : s.kernels)
    ok = ok && k.callBegin <= k.callEnd && k.callEnd <= s.commCalls.size();
  for (const int32_t c : s.commCalls) ok = ok && c >= 0 && static_cast<size_t>(c) < n;
  if (!ok) throw std::runtime_error("a rank's spanning calls that do not add up");
  return s;
}

CommTally CommTally::of(const CommMatches& m) {
  CommTally t;
  t.p2pUnmatched = m.p2pUnmatched;
  t.p2pWithoutPeer = m.p2pWithoutPeer;
  t.collectiveUnmatched = m.collectiveUnmatched;
  t.withoutCall = m.withoutCall;
  for (const TracedMembers& members : m.collectiveMembers) {
    if (members.partial()) t.partial.push_back(members);
  }
  return t;
}

void CommTally::add(const CommTally& t) {
  p2pUnmatched += t.p2pUnmatched;
  p2pWithoutPeer += t.p2pWithoutPeer;
  collectiveUnmatched += t.collectiveUnmatched;
  withoutCall += t.withoutCall;
  partial.insert(partial.end(), t.partial.begin(), t.partial.end());
}

CommMatches CommTally::forWarnings() const {
  CommMatches m;
  m.p2pUnmatched = p2pUnmatched;
  m.p2pWithoutPeer = p2pWithoutPeer;
  m.collectiveUnmatched = collectiveUnmatched;
  m.withoutCall = withoutCall;
  m.collectiveMembers = partial;
  return m;
}

ReplicaMatching matchReplica(const traces::Run& run, const std::vector<RankOps>& ops,
                             const std::vector<uint32_t>& ranks, const SpanningComms& spanning) {
  ReplicaMatching out;
  const MatchScope scope = ownerScope(run, ops, ranks, spanning);
  const CommMatches local = matchCommsIn(run, ops, scope);
  out.matchedAny = !local.empty();
  out.tally = CommTally::of(local);
  std::vector<bool> away(run.ranks.size(), false);
  for (const uint32_t r : ranks) {
    SpanningCalls s = spanningCallsOf(r, run.ranks[r], ops[r], scope.keep[r]);
    if (s.kernels.empty()) continue;
    away[r] = true;
    out.spanning.push_back(std::move(s));
  }
  // A pair both of whose ranks ran calls the coordinator matches may have gaps there too.
  for (auto& [key, list] : pairDeltas(local, ops)) {
    if (away[key.first] && away[key.second]) {
      out.deltas.emplace_hint(out.deltas.end(), key, std::move(list));
    } else {
      out.medians.emplace_hint(out.medians.end(), key, medianOf(list));
    }
  }
  return out;
}

namespace {

struct PairMedian {
  uint32_t a, b;
  TimeNs median;
};

}  // namespace

void encodeReplicaMatching(const ReplicaMatching& m, traces::ByteWriter& out) {
  out.value(m.matchedAny);
  std::vector<PairMedian> pairs;
  for (const auto& [key, median] : m.medians) pairs.push_back({key.first, key.second, median});
  out.column(pairs);
  out.value<uint64_t>(m.deltas.size());
  for (const auto& [key, list] : m.deltas) {
    out.value(key.first);
    out.value(key.second);
    out.column(list);
  }
  out.value(m.tally.p2pUnmatched);
  out.value(m.tally.p2pWithoutPeer);
  out.value(m.tally.collectiveUnmatched);
  out.value(m.tally.withoutCall);
  out.column(m.tally.partial);
  out.value<uint64_t>(m.spanning.size());
  for (const SpanningCalls& s : m.spanning) encodeSpanningCalls(s, out);
}

ReplicaMatching decodeReplicaMatching(traces::ByteReader& in) {
  ReplicaMatching m;
  m.matchedAny = in.value<bool>();
  std::vector<PairMedian> pairs;
  in.column(pairs);
  for (const PairMedian& p : pairs) m.medians.emplace(std::pair{p.a, p.b}, p.median);
  for (auto n = in.count(2 * sizeof(uint32_t) + sizeof(uint64_t)); n > 0; --n) {
    const auto a = in.value<uint32_t>();
    const auto b = in.value<uint32_t>();
    std::vector<TimeNs>& list = m.deltas[{a, b}];
    in.column(list);
    if (list.empty()) throw std::runtime_error("a pair of ranks with no gaps");
  }
  m.tally.p2pUnmatched = in.value<int32_t>();
  m.tally.p2pWithoutPeer = in.value<int32_t>();
  m.tally.collectiveUnmatched = in.value<int32_t>();
  m.tally.withoutCall = in.value<int32_t>();
  in.column(m.tally.partial);
  m.spanning.resize(in.count(sizeof(uint32_t)));
  for (SpanningCalls& s : m.spanning) s = decodeSpanningCalls(in);
  return m;
}

void encodeReplicaAlignment(const ReplicaAlignment& a, traces::ByteWriter& out) {
  out.value(a.offsetsApplied);
  out.column(a.offsets);
  out.column(a.splits);
  out.column(a.p2p);
}

ReplicaAlignment decodeReplicaAlignment(traces::ByteReader& in) {
  ReplicaAlignment a;
  a.offsetsApplied = in.value<bool>();
  in.column(a.offsets);
  in.column(a.splits);
  in.column(a.p2p);
  return a;
}

std::vector<ReplicaAlignment> alignReplicas(const traces::Run& run,
                                            std::vector<ReplicaMatching>&& replicas,
                                            const std::vector<std::vector<uint32_t>>& ranksOf,
                                            const SpanningComms& spanningComms, bool alignClocks,
                                            std::vector<std::string>& warnings) {
  const size_t n = run.ranks.size();
  // The spanning calls as a run of their own: each rank's metadata, those calls, their kernels.
  traces::Run spanning;
  spanning.ranks.resize(n);
  std::vector<RankOps> ops(n);
  std::vector<std::vector<int32_t>> callIndex(n);
  std::vector<std::vector<uint32_t>> kernelIndex(n);
  bool matchedAny = false;
  PairMedians medians;
  PairDeltas shared;  // the owners' gaps of pairs the coordinator may have gaps of too
  CommTally tally;
  for (size_t r = 0; r < n; ++r) spanning.ranks[r].meta = run.ranks[r].meta;
  for (ReplicaMatching& m : replicas) {
    matchedAny = matchedAny || m.matchedAny;
    for (const auto& [key, median] : m.medians) {
      if (!medians.emplace(key, median).second) {
        throw std::logic_error("a pair of ranks matched by two replicas' owners");
      }
    }
    for (auto& [key, list] : m.deltas) {
      if (!shared.emplace(key, std::move(list)).second) {
        throw std::logic_error("a pair of ranks matched by two replicas' owners");
      }
    }
    tally.add(m.tally);
    for (SpanningCalls& s : m.spanning) {
      if (s.rank >= n) throw std::runtime_error("a rank's spanning calls outside the run");
      *spanning.ranks[s.rank].ncclCalls = std::move(s.calls);
      ops[s.rank].commKernels = std::move(s.kernels);
      ops[s.rank].commCalls = std::move(s.commCalls);
      callIndex[s.rank] = std::move(s.callIndex);
      kernelIndex[s.rank] = std::move(s.kernelIndex);
    }
    m = ReplicaMatching{};
  }
  MatchScope scope;
  scope.given = &spanningComms.members;
  CommMatches whole = matchCommsIn(spanning, ops, scope);
  matchedAny = matchedAny || !whole.empty();
  PairDeltas deltas = pairDeltas(whole, ops);
  for (auto& [key, list] : shared) {
    std::vector<TimeNs>& all = deltas[key];
    all.insert(all.end(), list.begin(), list.end());
  }
  shared.clear();
  for (auto& [key, list] : deltas) {
    if (!medians.emplace(key, medianOf(list)).second) {
      throw std::logic_error("a pair of ranks matched by an owner and the coordinator");
    }
  }
  tally.add(CommTally::of(whole));
  std::vector<TimeNs> offsets;
  if (alignClocks && matchedAny) offsets = chainOffsets(medians, n);
  for (size_t r = 0; r < offsets.size(); ++r) shiftTimes(ops[r], offsets[r]);
  splitCommKernels(whole, ops);
  for (std::string& w : commWarnings(tally.forWarnings())) warnings.push_back(std::move(w));

  std::vector<int> replicaOf(n, -1);
  for (size_t d = 0; d < ranksOf.size(); ++d) {
    for (const uint32_t r : ranksOf[d]) replicaOf.at(r) = static_cast<int>(d);
  }
  std::vector<ReplicaAlignment> out(ranksOf.size());
  for (size_t d = 0; d < ranksOf.size(); ++d) {
    out[d].offsetsApplied = !offsets.empty();
    for (const uint32_t r : ranksOf[d]) {
      if (!offsets.empty()) out[d].offsets.push_back(offsets[r]);
      for (size_t k = 0; k < ops[r].commKernels.size(); ++k) {
        const CommKernel& ck = ops[r].commKernels[k];
        if (!ck.matched && !ck.members.partial()) continue;
        out[d].splits.push_back({r, kernelIndex[r][k], ck.transferStart, ck.matched, ck.members});
      }
    }
  }
  const std::vector<int> global = globalRanks(spanning);
  auto original = [&](const KernelRef& k) {
    return KernelRef{k.rank, kernelIndex[k.rank][k.kernel]};
  };
  for (P2pMatch m : whole.p2p) {
    KeyedP2p keyed;
    keyed.comm = spanning.ranks[m.sendKernel.rank].ncclCalls->comm[static_cast<size_t>(m.sendCall)];
    keyed.from = global[m.sendKernel.rank];
    keyed.to = global[m.recvKernel.rank];
    m.sendCall = callIndex[m.sendKernel.rank][static_cast<size_t>(m.sendCall)];
    m.recvCall = callIndex[m.recvKernel.rank][static_cast<size_t>(m.recvCall)];
    m.sendKernel = original(m.sendKernel);
    m.recvKernel = original(m.recvKernel);
    keyed.match = m;
    const int a = replicaOf[m.sendKernel.rank], b = replicaOf[m.recvKernel.rank];
    if (a >= 0) out[static_cast<size_t>(a)].p2p.push_back(keyed);
    if (b >= 0 && b != a) out[static_cast<size_t>(b)].p2p.push_back(keyed);
  }
  return out;
}

std::vector<P2pMatch> mergedP2p(const traces::Run& run, const CommMatches& local,
                                const std::vector<KeyedP2p>& spanning) {
  const std::vector<int> global = globalRanks(run);
  std::vector<KeyedP2p> all;
  all.reserve(local.p2p.size() + spanning.size());
  for (const P2pMatch& m : local.p2p) {
    const auto comm = run.ranks[m.sendKernel.rank].ncclCalls->comm[static_cast<size_t>(m.sendCall)];
    all.push_back({comm, global[m.sendKernel.rank], global[m.recvKernel.rank], m});
  }
  all.insert(all.end(), spanning.begin(), spanning.end());
  // Each list is in the job's order already; their communicators differ, so a stable sort by
  // the key interleaves them as the job's matching did.
  std::stable_sort(all.begin(), all.end(), [](const KeyedP2p& a, const KeyedP2p& b) {
    return std::tie(a.comm, a.from, a.to) < std::tie(b.comm, b.from, b.to);
  });
  std::vector<P2pMatch> out;
  out.reserve(all.size());
  for (const KeyedP2p& k : all) out.push_back(k.match);
  return out;
}

}  // namespace bubblescope::analysis
