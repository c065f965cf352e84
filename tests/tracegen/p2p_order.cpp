#include "tests/tracegen/p2p_order.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

#include "tests/tracegen/zb_v_order.h"

namespace bubblescope::tracegen {
namespace {

using OpKey = std::tuple<int, PassKind, int, int>;  // stage, pass, chunk, mb

OpKey keyOf(int stage, const StageOp& o) {
  return {stage, o.pass, o.chunk, o.mb};
}

// The op `delta` virtual stages along o's data (-1: its input's maker; +1: its output's taker),
// the data going to the next virtual stage from a forward, to the one before from a backward.
PeerOp neighbour(const JobSpec& spec, int r, const StageOp& o, int delta) {
  if (o.pass == PassKind::W) return {};
  const int vs = virtualStage(spec, r, o.chunk) + (o.pass == PassKind::F ? delta : -delta);
  if (vs < 0 || vs >= virtualStages(spec)) return {};
  const int stage = stageOfVirtual(spec, vs);
  if (stage == r) return {};
  return {stage, {o.pass, o.mb, chunkOfVirtual(spec, vs)}};
}

// Each op's time step: every op takes one step and starts as soon as its stage is free and its
// input from another stage was made in an earlier step.
std::map<OpKey, int> timeSteps(const JobSpec& spec,
                               const std::vector<std::vector<StageOp>>& orders) {
  std::map<OpKey, int> step;
  std::vector<size_t> next(orders.size(), 0);
  size_t left = 0;
  for (const auto& o : orders) left += o.size();
  for (int t = 0; left > 0; ++t) {
    std::vector<std::pair<int, StageOp>> now;
    for (int s = 0; s < spec.p; ++s) {
      if (next[s] == orders[s].size()) continue;
      const StageOp& o = orders[s][next[s]];
      if (const PeerOp in = inputOf(spec, s, o); in.stage >= 0) {
        auto it = step.find(keyOf(in.stage, in.op));
        if (it == step.end() || it->second >= t) continue;
      }
      now.push_back({s, o});
    }
    if (now.empty()) throw std::logic_error("tracegen: the schedule's order deadlocks");
    for (const auto& [s, o] : now) {
      step[keyOf(s, o)] = t;
      ++next[s];
      --left;
    }
  }
  return step;
}

}  // namespace

PeerOp inputOf(const JobSpec& spec, int r, const StageOp& o) {
  return neighbour(spec, r, o, -1);
}

PeerOp outputOf(const JobSpec& spec, int r, const StageOp& o) {
  return neighbour(spec, r, o, +1);
}

int inputPeer(const JobSpec& spec, int r, const StageOp& o) {
  return inputOf(spec, r, o).stage;
}

int outputPeer(const JobSpec& spec, int r, const StageOp& o) {
  return outputOf(spec, r, o).stage;
}

std::vector<std::pair<int, int>> links(const JobSpec& spec) {
  std::vector<std::pair<int, int>> out;
  for (int vs = 0; vs + 1 < virtualStages(spec); ++vs) {
    const int a = stageOfVirtual(spec, vs), b = stageOfVirtual(spec, vs + 1);
    if (a == b) continue;  // ZB-V's turn
    for (std::pair<int, int> link : {std::pair{a, b}, std::pair{b, a}}) {
      if (std::find(out.begin(), out.end(), link) == out.end()) out.push_back(link);
    }
  }
  return out;
}

std::vector<int> peers(const JobSpec& spec, int stage) {
  std::vector<int> out;
  for (auto [from, to] : links(spec)) {
    if (from == stage) out.push_back(to);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<RankAction> multiChunkProgram(const JobSpec& spec, int r) {
  std::vector<std::vector<StageOp>> orders;
  for (int s = 0; s < spec.p; ++s) orders.push_back(stageOrder(spec, s));
  const std::map<OpKey, int> step = timeSteps(spec, orders);
  // Each pair's messages in the order both sides post them: by the step that made the data, the
  // lower sender first within a step. With one stream for both peers, every message of the rank
  // in that order, which is every rank's order restricted to its own: on the loop of interleaving
  // (p > 2), pairs posted apart wait on each other round the ring.
  const auto queueOf = [&](int q) { return spec.sharedP2pStream ? -1 : q; };
  std::map<int, std::vector<std::tuple<int, int, RankAction>>> messages;
  for (int q = 0; q < spec.p; ++q) {
    if (q == r) continue;
    for (int sender : {r, q}) {
      const int receiver = sender == r ? q : r;
      for (const StageOp& o : orders[sender]) {
        const PeerOp out = outputOf(spec, sender, o);
        if (out.stage != receiver) continue;
        // Each side names the message by its own op.
        const RankAction action = sender == r ? RankAction{RankAction::Send, o, q}
                                              : RankAction{RankAction::Recv, out.op, q};
        messages[queueOf(q)].push_back({step.at(keyOf(sender, o)), sender, action});
      }
    }
  }
  std::map<int, std::vector<RankAction>> pair;  // by queueOf(peer)
  for (auto& [queue, list] : messages) {
    std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
      return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
    });
    for (auto& m : list) pair[queue].push_back(std::get<2>(m));
  }
  std::map<int, size_t> posted;
  std::vector<RankAction> out;
  // Posts the pair's messages up to and including `last`; those before it are receives only: a
  // send before it would come from an op that has not run yet.
  auto postUpTo = [&](int q, RankAction::Kind kind, const StageOp& last) {
    const std::vector<RankAction>& list = pair[queueOf(q)];
    for (size_t& i = posted[queueOf(q)]; i < list.size();) {
      const RankAction& m = list[i++];
      out.push_back(m);
      if (m.kind == kind && m.peer == q && m.op == last) return;
      if (m.kind == RankAction::Send)
        throw std::logic_error("tracegen: a send posted before its op");
    }
    throw std::logic_error("tracegen: a message missing from its pair's order");
  };
  for (const StageOp& o : orders[r]) {
    if (const int from = inputPeer(spec, r, o); from >= 0) {
      const auto& list = pair[queueOf(from)];
      const bool done =
          std::any_of(list.begin(), list.begin() + static_cast<long>(posted[queueOf(from)]),
                      [&](const RankAction& m) { return m.kind == RankAction::Recv && m.op == o; });
      if (!done) postUpTo(from, RankAction::Recv, o);
    }
    out.push_back({RankAction::Run, o, -1});
    if (const int to = outputPeer(spec, r, o); to >= 0) postUpTo(to, RankAction::Send, o);
  }
  return out;
}

}  // namespace bubblescope::tracegen
