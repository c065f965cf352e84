#include "analyzer/hang/nccl_waits.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "analyzer/comm/comm_match.h"
#include "analyzer/hang/device_waits.h"

namespace bubblescope::analysis::hang {
namespace {

using traces::NcclCalls;
using traces::NcclOp;

// A point-to-point call by its NCCL name ("ncclRecv"), a collective as a person says it.
const char* callName(NcclOp op) {
  const traces::NcclOpInfo& info = traces::ncclOpInfo(op);
  return info.pointToPoint ? info.api : info.collective ? info.human : "NCCL call";
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// ncclDataType_t names, for messages.
const char* typeName(uint8_t t) {
  static const char* const kNames[] = {"int8",   "uint8",   "int32",   "uint32",  "int64",
                                       "uint64", "float16", "float32", "float64", "bfloat16"};
  return t < std::size(kNames) ? kNames[t] : "?";
}

std::string amount(const NcclCalls& c, int32_t i) {
  return std::to_string(c.count[i]) + " x " + typeName(c.dtype[i]) + " (" +
         std::to_string(c.bytes[i]) + " B)";
}

// "ncclRecv peer=2 count=1024 comm=0x...": a point-to-point call as the report names it.
std::string p2pWhat(const NcclCalls& c, int32_t i) {
  return std::string(callName(c.op[i])) + " peer=" + std::to_string(c.peer[i]) +
         " count=" + std::to_string(c.count[i]) + " comm=" + hex(c.comm[i]);
}

// Each communicator's members: (comm, rank in it) -> index into the run, from every call.
class Members {
 public:
  explicit Members(const traces::Run& run) {
    const std::vector<int> global = globalRanks(run);
    for (size_t r = 0; r < run.ranks.size(); ++r) {
      byGlobal_[global[r]] = static_cast<int>(r);
      const NcclCalls& c = run.ranks[r].ncclCalls;
      for (size_t i = 0; i < c.size(); ++i) {
        if (c.comm[i] == 0) continue;
        all_[c.comm[i]].insert(static_cast<int>(r));
        if (c.commRank[i] >= 0) inComm_[{c.comm[i], c.commRank[i]}] = static_cast<int>(r);
      }
    }
  }
  // The run index of a call's p2p peer, or -1.
  int peer(const NcclCalls& c, int32_t i) const {
    if (c.commRank[i] >= 0) {
      auto it = inComm_.find({c.comm[i], c.peer[i]});
      return it == inComm_.end() ? -1 : it->second;
    }
    auto it = byGlobal_.find(c.peer[i]);
    return it == byGlobal_.end() ? -1 : it->second;
  }
  const std::set<int>& of(uint64_t comm) const {
    static const std::set<int> kNone;
    auto it = all_.find(comm);
    return it == all_.end() ? kNone : it->second;
  }

 private:
  std::map<std::pair<uint64_t, int32_t>, int> inComm_;
  std::map<int, int> byGlobal_;
  std::map<uint64_t, std::set<int>> all_;
};

// Each collective call's number in its communicator: the recorded sequence number, else its
// place among the rank's collectives on that communicator (1-based).
std::vector<std::vector<uint64_t>> collectiveNumbers(const traces::Run& run) {
  std::vector<std::vector<uint64_t>> out(run.ranks.size());
  for (size_t r = 0; r < run.ranks.size(); ++r) {
    const NcclCalls& c = run.ranks[r].ncclCalls;
    std::map<uint64_t, uint64_t> count;
    out[r].assign(c.size(), 0);
    for (size_t i = 0; i < c.size(); ++i) {
      if (!traces::isCollective(c.op[i])) continue;
      const uint64_t n = ++count[c.comm[i]];
      out[r][i] = c.seq[i] > 0 ? c.seq[i] : n;
    }
  }
  return out;
}

// What every finding reads: the run's calls matched across ranks, each communicator's members and
// each collective's number.
struct MatchedCalls {
  const traces::Run& run;
  std::vector<int> global;
  CallMatches m;
  Members members;
  std::vector<std::vector<uint64_t>> numbers;

  explicit MatchedCalls(const traces::Run& r)
      : run(r), global(globalRanks(r)), m(matchAll(r)), members(r), numbers(collectiveNumbers(r)) {}
  const NcclCalls& callsOf(const CallRef& c) const { return run.ranks[c.rank].ncclCalls; }
  // "all-reduce #42 of comm 0x...": a collective call as the report names it.
  std::string collectiveWhat(uint32_t rank, int32_t call) const {
    const NcclCalls& c = run.ranks[rank].ncclCalls;
    return std::string(callName(c.op[call])) + " #" + std::to_string(numbers[rank][call]) +
           " of comm " + hex(c.comm[call]);
  }

 private:
  static CallMatches matchAll(const traces::Run& run) {
    std::vector<std::vector<int32_t>> calls(run.ranks.size());
    for (size_t r = 0; r < run.ranks.size(); ++r) {
      for (size_t i = 0; i < run.ranks[r].ncclCalls->size(); ++i)
        calls[r].push_back(static_cast<int32_t>(i));
    }
    return matchCalls(run, calls);
  }
};

// Matched calls whose sides disagree: point-to-point calls of different sizes, collectives whose
// members give different amounts or call different ops. One sentence each, in posting order.
void addMismatches(const MatchedCalls& mc, NcclFindings& out) {
  std::map<std::tuple<uint64_t, uint32_t, uint32_t>, int> p2pCount;
  std::vector<std::pair<TimeNs, size_t>> order;  // mismatches in posting order
  std::vector<std::string> sentences;
  std::vector<std::vector<int>> involved;
  const std::vector<int>& global = mc.global;
  for (const auto& [s, r] : mc.m.p2p) {
    const NcclCalls& sc = mc.callsOf(s);
    const NcclCalls& rc = mc.callsOf(r);
    // A live query's calls are a cut history: they carry their number per peer (live_run.h).
    const int counted = ++p2pCount[{sc.comm[s.call], s.rank, r.rank}];
    const int n = mc.run.ranks[s.rank].meta.source == "live" && sc.seq[s.call] > 0
                      ? static_cast<int>(sc.seq[s.call])
                      : counted;
    // A side that says nothing of its size (a receive asked live before its message came: NCCL's
    // range gives the bytes when it closes) cannot disagree.
    const bool sized =
        (sc.bytes[s.call] | sc.count[s.call]) != 0 && (rc.bytes[r.call] | rc.count[r.call]) != 0;
    if (!sized || (sc.bytes[s.call] == rc.bytes[r.call] && sc.count[s.call] == rc.count[r.call])) {
      continue;
    }
    sentences.push_back("rank " + std::to_string(global[s.rank]) + "'s send #" + std::to_string(n) +
                        " to rank " + std::to_string(global[r.rank]) + " on comm " +
                        hex(sc.comm[s.call]) + " carries " + amount(sc, s.call) + ", but rank " +
                        std::to_string(global[r.rank]) + " receives " + amount(rc, r.call) +
                        " for it");
    involved.push_back({static_cast<int>(s.rank), static_cast<int>(r.rank)});
    order.push_back({std::min(sc.start[s.call], rc.start[r.call]), sentences.size() - 1});
  }
  auto checkCollective = [&](const std::vector<CallRef>& refs, bool opsDiffer) {
    const CallRef& a = refs.front();
    const NcclCalls& ac = mc.callsOf(a);
    for (const CallRef& b : refs) {
      const NcclCalls& bc = mc.callsOf(b);
      const bool differs =
          opsDiffer ? bc.op[b.call] != ac.op[a.call]
                    : bc.count[b.call] != ac.count[a.call] || bc.bytes[b.call] != ac.bytes[a.call];
      if (!differs) continue;
      std::string s = mc.collectiveWhat(a.rank, a.call) + ": ";
      if (opsDiffer) {
        s += "rank " + std::to_string(global[a.rank]) + " calls " + callName(ac.op[a.call]) +
             " where rank " + std::to_string(global[b.rank]) + " calls " + callName(bc.op[b.call]);
      } else {
        s += "rank " + std::to_string(global[a.rank]) + " gives " + amount(ac, a.call) + ", rank " +
             std::to_string(global[b.rank]) + " " + amount(bc, b.call);
      }
      sentences.push_back(s);
      involved.push_back({static_cast<int>(a.rank), static_cast<int>(b.rank)});
      order.push_back({std::min(ac.start[a.call], bc.start[b.call]), sentences.size() - 1});
      return;
    }
  };
  for (const auto& refs : mc.m.collectives) checkCollective(refs, false);
  for (const auto& refs : mc.m.collectiveDisagree) checkCollective(refs, true);
  std::stable_sort(order.begin(), order.end());
  for (const auto& [t, k] : order) {
    out.mismatches.push_back(sentences[k]);
    out.mismatchRanks.push_back(involved[k]);
  }
}

using MissingOf = std::map<std::pair<uint32_t, int32_t>, std::vector<int>>;  // (rank, call)

// Collectives some members never entered: the members that did wait on the others (each rank in
// its first incomplete collective only). Returns, per call of such a collective, who is missing.
MissingOf addMissingMembers(const MatchedCalls& mc, NcclFindings& out) {
  std::set<CallRef, bool (*)(const CallRef&, const CallRef&)> disagreeing(
      [](const CallRef& a, const CallRef& b) {
        return std::tie(a.rank, a.call) < std::tie(b.rank, b.call);
      });
  for (const auto& refs : mc.m.collectiveDisagree) disagreeing.insert(refs.begin(), refs.end());
  std::map<std::pair<uint64_t, uint64_t>, std::vector<CallRef>> incomplete;  // (comm, number)
  for (const CallRef& c : mc.m.collectiveLeft) {
    if (disagreeing.count(c) != 0) continue;
    incomplete[{mc.callsOf(c).comm[c.call], mc.numbers[c.rank][c.call]}].push_back(c);
  }
  std::set<int> reported;
  MissingOf missingOf;
  for (const auto& [key, refs] : incomplete) {
    std::set<int> entered;
    TimeNs since = INT64_MAX;
    for (const CallRef& c : refs) {
      entered.insert(static_cast<int>(c.rank));
      since = std::min(since, mc.callsOf(c).start[c.call]);
    }
    MissingMember mm;
    for (int r : mc.members.of(key.first)) {
      if (entered.count(r) == 0) mm.missing.push_back(r);
    }
    if (mm.missing.empty()) continue;
    for (const CallRef& c : refs) missingOf[{c.rank, c.call}] = mm.missing;
    mm.waiting.assign(entered.begin(), entered.end());
    const CallRef& first = refs.front();
    mm.what = std::string(callName(mc.callsOf(first).op[first.call])) + " #" +
              std::to_string(key.second) + " of comm " + hex(key.first);
    mm.since = since;
    for (const CallRef& c : refs) {
      if (!reported.insert(static_cast<int>(c.rank)).second) continue;
      Wait w;
      w.what = mm.what;
      w.since = mc.callsOf(c).start[c.call];
      w.on = mm.missing;
      w.nccl = true;
      out.waits[c.rank].push_back(std::move(w));
    }
    out.missing.push_back(std::move(mm));
  }
  std::sort(out.missing.begin(), out.missing.end(),
            [](const auto& a, const auto& b) { return a.since < b.since; });
  return missingOf;
}

// Sends and receives whose other side never came: the first per rank that waits on nothing else.
void addUnpairedP2p(const MatchedCalls& mc, NcclFindings& out) {
  std::vector<CallRef> left = mc.m.p2pLeft;
  std::sort(left.begin(), left.end(), [&](const CallRef& a, const CallRef& b) {
    return mc.callsOf(a).start[a.call] < mc.callsOf(b).start[b.call];
  });
  for (const CallRef& c : left) {
    const NcclCalls& nc = mc.callsOf(c);
    if (!out.waits[c.rank].empty()) continue;
    Wait w;
    w.what = p2pWhat(nc, c.call);
    w.since = nc.start[c.call];
    if (const int p = mc.members.peer(nc, c.call); p >= 0) w.on.push_back(p);
    w.nccl = true;
    out.waits[c.rank].push_back(std::move(w));
  }
}

// Calls whose kernels never finished: where each stuck stream stopped comes first, whether or
// not the call's other sides came (if they did, the rank still waits on them: their kernels
// hold it).
void putStuckCallsFirst(const MatchedCalls& mc, const MissingOf& missingOf, NcclFindings& out) {
  std::map<std::pair<uint32_t, int32_t>, std::vector<int>> partners;  // matched (rank, call)
  for (const auto& [s, r] : mc.m.p2p) {
    partners[{s.rank, s.call}] = {static_cast<int>(r.rank)};
    partners[{r.rank, r.call}] = {static_cast<int>(s.rank)};
  }
  for (size_t k = 0; k < mc.m.collectives.size(); ++k) {
    // Members the run does not trace may never have come: the traced ones' calls do not say
    // every other side posted, so a stuck kernel there is not called NCCL's fault.
    if (k < mc.m.collectiveMembers.size() && mc.m.collectiveMembers[k].partial()) continue;
    for (const CallRef& a : mc.m.collectives[k]) {
      auto& on = partners[{a.rank, a.call}];
      for (const CallRef& b : mc.m.collectives[k]) {
        if (b.rank != a.rank) on.push_back(static_cast<int>(b.rank));
      }
    }
  }
  const auto stuck = stuckOnDevice(mc.run);
  for (size_t r = 0; r < mc.run.ranks.size() && r < stuck.size(); ++r) {
    if (stuck[r].empty()) continue;
    const NcclCalls& nc = mc.run.ranks[r].ncclCalls;
    std::vector<Wait> first;
    std::vector<Wait>& host = out.waits[r];
    for (const StuckLaunch& s : stuck[r]) {
      for (int32_t call : s.calls) {
        Wait w;
        w.since = nc.start[call];
        w.nccl = true;
        const bool collective = traces::isCollective(nc.op[call]);
        if (!traces::movesData(nc.op[call])) continue;
        w.what = collective ? mc.collectiveWhat(static_cast<uint32_t>(r), call) : p2pWhat(nc, call);
        const std::pair<uint32_t, int32_t> key{static_cast<uint32_t>(r), call};
        if (auto p = partners.find(key); p != partners.end()) {
          w.on = p->second;
          w.partnerPosted = true;
        } else if (auto mm = missingOf.find(key); mm != missingOf.end()) {
          w.on = mm->second;
        } else if (const int peer = collective ? -1 : mc.members.peer(nc, call); peer >= 0) {
          w.on.push_back(peer);
        }
        w.kernelLaunch = s.launch;
        // The host-side wait for the same call gives way to this one.
        std::erase_if(host, [&](const Wait& h) { return h.what == w.what && h.since == w.since; });
        first.push_back(std::move(w));
      }
    }
    first.insert(first.end(), host.begin(), host.end());
    host = std::move(first);
  }
}

}  // namespace

NcclFindings ncclFindings(const traces::Run& run) {
  NcclFindings out;
  out.waits.resize(run.ranks.size());
  const MatchedCalls mc(run);
  addMismatches(mc, out);
  const MissingOf missingOf = addMissingMembers(mc, out);
  addUnpairedP2p(mc, out);
  putStuckCallsFirst(mc, missingOf, out);
  return out;
}

}  // namespace bubblescope::analysis::hang
