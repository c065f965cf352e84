#include "tests/tracegen/megatron_execution.h"

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <tuple>

#include "tests/tracegen/interleaved_order.h"

namespace bubblescope::tracegen {
namespace {

uint64_t mix(uint64_t x) {  // splitmix64: a seeded, order-free draw per op
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

double uniform(uint64_t seed, std::initializer_list<int64_t> key) {  // in [0, 1)
  uint64_t h = seed;
  for (int64_t k : key) h = mix(h ^ static_cast<uint64_t>(k));
  return static_cast<double>(h >> 11) / 9007199254740992.0;
}

struct Transfer {
  bool send = true;
  char pass = 'F';
  int mb = 0, peer = 0;
  int chunk = 0;  // the virtual stage the data leaves from is chunk * p + stage (sender's)
};

// One thing a TP group does, in order.
struct Action {
  enum Kind { DataLoad, Compute, P2P, DpCollective, WorldCollective, OptimizerStep } kind;
  std::string_view name;
  char pass = 'F';
  int mb = -1;
  std::vector<Transfer> transfers = {};
  int chunk = 0;
  bool async = false;  // an isend: posted, not waited for
};

// Megatron's forward_backward_pipelining_without_interleaving, stage s of p, m microbatches.
std::vector<Action> oneStep(int s, int p, int m) {
  std::vector<Action> a;
  const bool first = s == 0, last = s == p - 1;
  const int warm = std::min(p - s - 1, m), rem = m - warm;
  auto compute = [&](char pass, int mb) {
    a.push_back({Action::Compute, pass == 'F' ? "forward-compute" : "backward-compute", pass, mb});
  };
  auto p2p = [&](std::string_view name, std::vector<Transfer> t) {
    a.push_back({Action::P2P, name, t.front().pass, t.front().mb, std::move(t)});
  };
  a.push_back({Action::DataLoad, "data-load"});
  for (int i = 0; i < warm; ++i) {
    if (!first) p2p("forward-recv", {{false, 'F', i, s - 1}});
    compute('F', i);
    if (!last) p2p("forward-send", {{true, 'F', i, s + 1}});
  }
  if (rem > 0 && !first) p2p("forward-recv", {{false, 'F', warm, s - 1}});
  for (int i = 0; i < rem; ++i) {
    const int f = warm + i;
    compute('F', f);
    if (!last) p2p("forward-send-backward-recv", {{true, 'F', f, s + 1}, {false, 'B', i, s + 1}});
    compute('B', i);
    if (first) continue;
    if (i == rem - 1) {
      p2p("backward-send", {{true, 'B', i, s - 1}});
    } else {
      p2p("backward-send-forward-recv", {{true, 'B', i, s - 1}, {false, 'F', f + 1, s - 1}});
    }
  }
  for (int i = 0; i < warm; ++i) {
    const int b = rem + i;
    if (!last) p2p("backward-recv", {{false, 'B', b, s + 1}});
    compute('B', b);
    if (!first) p2p("backward-send", {{true, 'B', b, s - 1}});
  }
  return a;
}

void tail(std::vector<Action>& a) {
  a.push_back({Action::DpCollective, "grads-reduce-scatter"});
  a.push_back({Action::WorldCollective, "optimizer-clip-main-grad"});
  a.push_back({Action::OptimizerStep, "optimizer-inner-step"});
  a.push_back({Action::DpCollective, "params-all-gather"});
}

// Megatron's forward_backward_pipelining_with_interleaving on stage s, without
// --overlap-p2p-communication: v chunks per stage, virtual stage c * p + s, in the order
// interleaved_order.h gives, run as units: each warm-up forward alone, then 1F1B pairs (a forward
// and a backward), then each cool-down backward alone. The stage first receives its first op's
// input; after each unit one blocking batch sends what the unit produced and receives what the
// next unit needs (recv_prev, recv_next): a forward's output leaves only after the backward it is
// paired with. Megatron's timers name the batch by its passes: forward-send-forward-recv,
// forward-backward-send-forward-backward-recv, backward-send-backward-recv.
std::vector<Action> interleavedStep(int s, int p, int m, int v) {
  const std::vector<StageOp> order = interleavedOrder(p, m, v, s);
  const int warm = interleavedWarmup(p, m, v, s);
  const int last = p * v - 1;
  // Each unit's ops, as [begin, end) into `order`.
  std::vector<std::pair<int, int>> units;
  const int n = static_cast<int>(order.size());
  const int pairs = n / 2 - warm;  // every op of each pass once: m v forwards, m v backwards
  for (int i = 0; i < warm; ++i) units.push_back({i, i + 1});
  for (int k = 0; k < pairs; ++k) units.push_back({warm + 2 * k, warm + 2 * k + 2});
  for (int i = warm + 2 * pairs; i < n; ++i) units.push_back({i, i + 1});
  auto transfer = [&](const StageOp& o, bool send) -> std::optional<Transfer> {
    const char pass = o.pass == PassKind::F ? 'F' : 'B';
    const int vs = o.chunk * p + s;
    // Activations go to the next virtual stage, gradients to the one before.
    const int peer = (pass == 'F') == send ? vs + 1 : vs - 1;
    if (peer < 0 || peer > last) return std::nullopt;
    return send ? Transfer{true, pass, o.mb, peer % p, o.chunk}
                : Transfer{false, pass, o.mb, peer % p, peer / p};
  };
  auto batch = [](std::vector<Transfer> t) -> Action {
    bool f = false, b = false;
    for (const Transfer& x : t) (x.pass == 'F' ? f : b) = true;
    const std::string_view name = f && b ? "forward-backward-send-forward-backward-recv"
                                  : f    ? "forward-send-forward-recv"
                                         : "backward-send-backward-recv";
    return {Action::P2P, name, t.front().pass, t.front().mb, std::move(t)};
  };
  std::vector<Action> a;
  a.push_back({Action::DataLoad, "data-load"});
  if (!units.empty()) {
    std::vector<Transfer> first;
    for (int i = units[0].first; i < units[0].second; ++i) {
      if (auto t = transfer(order[i], false)) first.push_back(*t);
    }
    if (!first.empty()) a.push_back({Action::P2P, "forward-recv", 'F', first.front().mb, first});
  }
  for (size_t u = 0; u < units.size(); ++u) {
    std::vector<Transfer> t;
    for (int i = units[u].first; i < units[u].second; ++i) {
      const StageOp& o = order[i];
      const bool fwd = o.pass == PassKind::F;
      a.push_back({Action::Compute,
                   fwd ? "forward-compute" : "backward-compute",
                   fwd ? 'F' : 'B',
                   o.mb,
                   {},
                   o.chunk});
      if (auto out = transfer(o, true)) t.push_back(*out);
    }
    if (u + 1 < units.size()) {
      for (int i = units[u + 1].first; i < units[u + 1].second; ++i) {
        if (auto in = transfer(order[i], false)) t.push_back(*in);
      }
    }
    if (!t.empty()) a.push_back(batch(std::move(t)));
  }
  return a;
}

struct Rendezvous {
  int arrived = 0;
  TimeNs last = 0;
};

// A point-to-point transfer, keyed by (replica, step, pass, mb, from stage).
struct Link {
  std::optional<TimeNs> sendPost, recvPost;
  struct Sender {  // an asynchronous send, written when its receiver completes
    int stage = 0;
    std::string_view name;
    int chunk = 0;
  } sender;
};

class Model {
 public:
  Model(const MegatronJob& job, bool ideal) : job_(job), ideal_(ideal) {
    out_.job = job;
    out_.ranks.resize(job.ranks());
    for (int d = 0; d < job.dp; ++d) {
      for (int s = 0; s < job.pp; ++s) {
        for (int t = 0; t < job.tp; ++t) {
          NdRank& r = out_.ranks[job.globalRank(d, s, t)];
          r.dp = d, r.pp = s, r.tp = t, r.rank = job.globalRank(d, s, t);
        }
      }
    }
    groups_.resize(static_cast<size_t>(job.dp * job.pp));
    for (int s = 0; s < job.pp; ++s) {
      plans_.push_back(job.v > 1 ? interleavedStep(s, job.pp, job.m, job.v)
                                 : oneStep(s, job.pp, job.m));
      tail(plans_.back());
    }
    for (auto& g : groups_) g.time = job.start;
    out_.stepStart.assign(job.steps, INT64_MAX);
    out_.stepEnd.assign(job.steps, INT64_MIN);
  }

  MegatronTimeline run() {
    for (bool progress = true; progress;) {
      progress = false;
      for (int d = 0; d < job_.dp; ++d) {
        for (int s = 0; s < job_.pp; ++s) {
          while (advance(d, s)) progress = true;
        }
      }
    }
    for (const Group& g : groups_) {
      if (g.step < job_.steps) throw std::logic_error("the Megatron model deadlocked");
    }
    return std::move(out_);
  }

 private:
  struct Group {
    int step = 0;
    size_t pc = 0;
    TimeNs time = 0;
    bool posted = false;  // the current P2P/collective action has been posted
  };

  Group& group(int d, int s) { return groups_[static_cast<size_t>(d * job_.pp + s)]; }

  TimeNs cost(int d, int s, int t, int step, char pass, int mb, int chunk) const {
    double c = static_cast<double>(pass == 'F' ? job_.costF : job_.costB);
    if (ideal_) return static_cast<TimeNs>(c);
    if (job_.slowStage && *job_.slowStage == s) c *= job_.slowStageFactor;
    if (job_.slowReplica &&
        (job_.slowReplicaRotates ? (*job_.slowReplica + step) % job_.dp : *job_.slowReplica) == d) {
      c *= job_.slowReplicaFactor;
    }
    if (job_.slowTpRank && job_.slowTpRank->dp == d && job_.slowTpRank->pp == s &&
        job_.slowTpRank->tp == t) {
      c *= job_.slowTpFactor;
    }
    if (mb < static_cast<int>(job_.seqFactor.size())) c *= job_.seqFactor[mb];
    if (job_.jitter > 0) {
      c *= 1 + job_.jitter * (2 * uniform(job_.seed, {d, s, t, step, pass, mb, chunk}) - 1);
    }
    return static_cast<TimeNs>(c);
  }

  void emit(int d, int s, NdEvent e) {
    for (int t = 0; t < job_.tp; ++t) out_.ranks[job_.globalRank(d, s, t)].events.push_back(e);
    note(e);
  }
  void note(const NdEvent& e) {
    out_.stepStart[e.step] = std::min(out_.stepStart[e.step], e.start);
    out_.stepEnd[e.step] = std::max(out_.stepEnd[e.step], e.end);
  }

  bool advance(int d, int s) {
    Group& g = group(d, s);
    if (g.step >= job_.steps) return false;
    const Action& a = plans_[s][g.pc];
    bool done = false;
    switch (a.kind) {
      case Action::DataLoad:
        emit(d, s, {a.name, NdThread::Compute, g.time, g.time + job_.dataLoad, g.step});
        g.time += job_.dataLoad;
        done = true;
        break;
      case Action::Compute:
        computeOp(d, s, g, a);
        done = true;
        break;
      case Action::OptimizerStep:
        emit(d, s, {a.name, NdThread::DpComm, g.time, g.time + job_.optimizer, g.step});
        g.time += job_.optimizer;
        done = true;
        break;
      case Action::P2P:
        done = p2p(d, s, g, a);
        break;
      case Action::DpCollective:
      case Action::WorldCollective:
        done = collective(d, s, g, a);
        break;
    }
    if (!done) return false;
    g.posted = false;
    if (++g.pc == plans_[s].size()) {
      g.pc = 0;
      ++g.step;
    }
    return true;
  }

  void computeOp(int d, int s, Group& g, const Action& a) {
    GroupOp op{d, s, g.step, a.mb, a.chunk, a.pass, INT64_MAX, INT64_MIN};
    for (int t = 0; t < job_.tp; ++t) {
      const TimeNs skew =
          ideal_ ? 0
                 : static_cast<TimeNs>(
                       static_cast<double>(job_.tpSkew) *
                       uniform(job_.seed + 1, {d, s, t, g.step, a.pass, a.mb, a.chunk}));
      const TimeNs start = g.time + skew;
      const TimeNs end = start + cost(d, s, t, g.step, a.pass, a.mb, a.chunk);
      auto& events = out_.ranks[job_.globalRank(d, s, t)].events;
      events.push_back({a.name, NdThread::Compute, start, end, g.step, a.mb, a.chunk});
      if (job_.tp > 1) {
        // The transfer part of the op's closing tp-allreduce, inside the rank's own span.
        events.push_back({"tp-allreduce", NdThread::TpComm, std::max(start, end - job_.tpComm), end,
                          g.step, a.mb});
      }
      note(events[events.size() - (job_.tp > 1 ? 2 : 1)]);
      op.start = std::min(op.start, start);
      op.end = std::max(op.end, end);
    }
    out_.ops.push_back(op);
    g.time = op.end;  // the tp-allreduce holds every rank until the last arrives
  }

  // dp, step, pass, mb, the virtual stage the data leaves from
  using LinkKey = std::tuple<int, int, char, int, int>;

  LinkKey key(int d, int s, int step, const Transfer& t) const {
    const int fromVirtual = t.send ? t.chunk * job_.pp + s : t.chunk * job_.pp + t.peer;
    return {d, step, t.pass, t.mb, fromVirtual};
  }

  bool p2p(int d, int s, Group& g, const Action& a) {
    if (!g.posted) {
      for (const Transfer& t : a.transfers) {
        Link& l = links_[key(d, s, g.step, t)];
        (t.send ? l.sendPost : l.recvPost) = g.time;
        if (t.send && a.async) l.sender = {s, a.name, a.chunk};
      }
      g.posted = true;
    }
    if (a.async) return true;  // an isend: its event is written when the receiver has it
    TimeNs first = INT64_MAX, last = INT64_MIN;
    for (const Transfer& t : a.transfers) {
      const Link& l = links_[key(d, s, g.step, t)];
      if (!l.sendPost || !l.recvPost) return false;
      const TimeNs start = std::max(*l.sendPost, *l.recvPost);
      first = std::min(first, start);
      last = std::max(last, start + job_.transfer);
    }
    for (const Transfer& t : a.transfers) {
      const Link& l = links_[key(d, s, g.step, t)];
      if (l.sender.name.empty()) continue;
      const TimeNs start = std::max(*l.sendPost, *l.recvPost);
      emit(d, l.sender.stage,
           {l.sender.name, NdThread::PpComm, start, start + job_.transfer, g.step, t.mb,
            l.sender.chunk});
    }
    emit(d, s, {a.name, NdThread::PpComm, first, last, g.step, a.mb, a.chunk});
    g.time = last;
    return true;
  }

  bool collective(int d, int s, Group& g, const Action& a) {
    const bool world = a.kind == Action::WorldCollective;
    const int members = world ? job_.dp * job_.pp : job_.dp;
    Rendezvous& r = rendezvous_[{g.step, a.name, world ? -1 : s}];
    if (!g.posted) {
      ++r.arrived;
      r.last = std::max(r.last, g.time);
      g.posted = true;
    }
    if (r.arrived < members) return false;
    const TimeNs dur = a.name == "grads-reduce-scatter" ? job_.reduceScatter
                       : world                          ? job_.clipGrad
                                                        : job_.allGather;
    // Waiting cut off: the event is the transfer, from the last member's arrival.
    emit(d, s, {a.name, NdThread::DpComm, r.last, r.last + dur, g.step});
    g.time = r.last + dur;
    return true;
  }

  const MegatronJob& job_;
  bool ideal_;
  MegatronTimeline out_;
  std::vector<std::vector<Action>> plans_;
  std::vector<Group> groups_;
  std::map<LinkKey, Link> links_;
  std::map<std::tuple<int, std::string_view, int>, Rendezvous> rendezvous_;
};

}  // namespace

MegatronTimeline executeMegatron(const MegatronJob& job) {
  return Model(job, false).run();
}

MegatronTimeline executeMegatronIdeal(const MegatronJob& job, TimeNs costF, TimeNs costB) {
  MegatronJob ideal = job;
  ideal.costF = costF;
  ideal.costB = costB;
  return Model(ideal, true).run();
}

}  // namespace bubblescope::tracegen
