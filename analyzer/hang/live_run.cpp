#include "analyzer/hang/live_run.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>

namespace bubblescope::analysis::hang {
namespace {

using control::LiveCall;
using traces::isPointToPoint;
using traces::NcclOp;

// Who is who in each communicator, and what each process has done in it.
class Ledger {
 public:
  explicit Ledger(const std::vector<LiveRank>& ranks) {
    for (size_t r = 0; r < ranks.size(); ++r) {
      const control::LiveSnapshot& s = ranks[r].snapshot;
      for (const control::LiveCount& c : s.counts) {
        if (c.commRank >= 0) member_[{c.comm, c.commRank}] = r;
        counts_[{r, c.comm, c.kind, c.peer}] = c.calls;
        commsOf_[c.comm].insert(r);
      }
      for (const LiveCall& c : s.calls) {
        if (c.commRank >= 0) member_[{c.comm, c.commRank}] = r;
        if (c.comm != 0) commsOf_[c.comm].insert(r);
        if (isPointToPoint(c.op)) {
          held_.insert({r, c.comm, c.op, c.peer, c.seq});
        } else {
          heldCollectives_.insert({r, c.comm, c.seq});
        }
      }
    }
  }

  // Whether the other side of `c` (a call of rank `r`) has been made; unknown (nullopt) when the
  // other side's process did not answer.
  std::optional<bool> answered(size_t r, const LiveCall& c) const {
    if (c.comm == 0 || c.seq == 0) return std::nullopt;
    if (isPointToPoint(c.op)) {
      const auto peer = member_.find({c.comm, c.peer});
      if (peer == member_.end() || c.commRank < 0) return std::nullopt;
      const char* kind = c.op == NcclOp::Send ? "recv" : "send";
      return count(peer->second, c.comm, kind, c.commRank) >= c.seq;
    }
    // Members that did not answer (or were not asked: --pid) are not waited for here: what the
    // answering members did is what can be told.
    const auto members = commsOf_.find(c.comm);
    if (members == commsOf_.end() || members->second.size() < 2) return std::nullopt;
    for (size_t m : members->second) {
      if (m != r && count(m, c.comm, "collective", -1) < c.seq) return false;
    }
    return true;
  }

  // Whether every other side of `c` still holds its call (so the two pair up in the run).
  bool partnersHold(size_t r, const LiveCall& c) const {
    if (isPointToPoint(c.op)) {
      const size_t peer = member_.at({c.comm, c.peer});
      const NcclOp other = c.op == NcclOp::Send ? NcclOp::Recv : NcclOp::Send;
      return held_.count({peer, c.comm, other, c.commRank, c.seq}) != 0;
    }
    for (size_t m : commsOf_.at(c.comm)) {
      if (m != r && heldCollectives_.count({m, c.comm, c.seq}) == 0) return false;
    }
    return true;
  }

 private:
  uint64_t count(size_t r, uint64_t comm, const std::string& kind, int32_t peer) const {
    const auto it = counts_.find({r, comm, kind, peer});
    return it == counts_.end() ? 0 : it->second;
  }

  std::map<std::pair<uint64_t, int32_t>, size_t> member_;  // (comm, rank in it) -> process
  std::map<std::tuple<size_t, uint64_t, std::string, int32_t>, uint64_t> counts_;
  std::map<uint64_t, std::set<size_t>> commsOf_;
  std::set<std::tuple<size_t, uint64_t, NcclOp, int32_t, uint64_t>> held_;  // p2p calls held
  std::set<std::tuple<size_t, uint64_t, uint64_t>> heldCollectives_;        // (process, comm, seq)
};

}  // namespace

traces::Run liveRun(std::vector<LiveRank> ranks, int64_t minWaitNs) {
  std::sort(ranks.begin(), ranks.end(), [](const LiveRank& a, const LiveRank& b) {
    return control::readingOrder(a.status, b.status);
  });
  traces::Run run;
  run.dir = "live";
  const Ledger ledger(ranks);
  for (size_t r = 0; r < ranks.size(); ++r) {
    const control::AgentStatus& st = ranks[r].status;
    const control::LiveSnapshot& s = ranks[r].snapshot;
    traces::RankTrace t;
    t.file = "pid-" + std::to_string(st.pid);
    traces::RankMeta& m = t.meta;
    m.source = "live";
    m.runId = st.runId;
    m.rank = static_cast<int>(st.rank);
    m.localRank = static_cast<int>(st.localRank);
    m.worldSize = static_cast<int>(st.worldSize);
    m.pid = st.pid;
    m.command = st.command;
    m.aliveNs = s.aliveNs;
    m.extra = s.env;
    const TimeNs oldEnough = s.aliveNs - minWaitNs;

    for (const control::LiveRange& o : s.ranges) {
      if (o.startNs > oldEnough) continue;  // it moves on
      auto& or_ = *t.openRanges;
      or_.start.push_back(o.startNs);
      or_.thread.push_back(t.threadIndex(o.tid));
      or_.domain.push_back(o.domain.empty() ? 0 : t.strings.intern(o.domain));
      or_.name.push_back(t.strings.intern(o.name));
      or_.depth.push_back(static_cast<uint16_t>(o.depth));
      or_.kind.push_back(traces::RangeKind::PushPop);
    }

    for (const LiveCall& c : s.calls) {
      if (c.op == NcclOp::Unknown) continue;
      const std::optional<bool> done = ledger.answered(r, c);
      if (done.value_or(false) ? !ledger.partnersHold(r, c) : c.startNs > oldEnough) continue;
      traces::NcclCall n;
      n.fields() = c;
      n.start = c.startNs;
      n.end = c.endNs != 0 ? c.endNs : s.aliveNs;  // not returned yet: in it when last seen
      n.thread = t.threadIndex(c.tid);
      t.ncclCalls->push(n);
    }
    run.ranks.push_back(std::move(t));
  }
  return run;
}

}  // namespace bubblescope::analysis::hang
