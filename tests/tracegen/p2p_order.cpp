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
      const int from = inputPeer(spec, s, o);
      if (from >= 0) {
        auto it = step.find(keyOf(from, o));
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

int inputPeer(const JobSpec& spec, int r, const StageOp& o) {
  if (o.pass == PassKind::W) return -1;
  const int vs = virtualStage(spec, r, o.chunk);
  const int from = o.pass == PassKind::F ? vs - 1 : vs + 1;
  if (from < 0 || from >= virtualStages(spec)) return -1;
  const int stage = stageOfVirtual(spec, from);
  return stage == r ? -1 : stage;
}

int outputPeer(const JobSpec& spec, int r, const StageOp& o) {
  if (o.pass == PassKind::W) return -1;
  const int vs = virtualStage(spec, r, o.chunk);
  const int to = o.pass == PassKind::F ? vs + 1 : vs - 1;
  if (to < 0 || to >= virtualStages(spec)) return -1;
  const int stage = stageOfVirtual(spec, to);
  return stage == r ? -1 : stage;
}

std::vector<RankAction> zbVProgram(const JobSpec& spec, int r) {
  std::vector<std::vector<StageOp>> orders;
  for (int s = 0; s < spec.p; ++s) orders.push_back(stageOrder(spec, s));
  const std::map<OpKey, int> step = timeSteps(spec, orders);
  // Each pair's messages in the order both sides post them: by the step that made the data, the
  // lower sender first within a step.
  std::map<int, std::vector<RankAction>> pair;
  for (int q = 0; q < spec.p; ++q) {
    if (q == r) continue;
    std::vector<std::tuple<int, int, RankAction>> messages;
    for (int sender : {r, q}) {
      const int receiver = sender == r ? q : r;
      for (const StageOp& o : orders[sender]) {
        if (outputPeer(spec, sender, o) != receiver) continue;
        const RankAction::Kind kind = sender == r ? RankAction::Send : RankAction::Recv;
        messages.push_back({step.at(keyOf(sender, o)), sender, RankAction{kind, o, q}});
      }
    }
    std::stable_sort(messages.begin(), messages.end(), [](const auto& a, const auto& b) {
      return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
    });
    for (auto& m : messages) pair[q].push_back(std::get<2>(m));
  }
  std::map<int, size_t> posted;
  std::vector<RankAction> out;
  // Posts the pair's messages up to and including `last`; those before it are receives only: a
  // send before it would come from an op that has not run yet.
  auto postUpTo = [&](int q, RankAction::Kind kind, const StageOp& last) {
    const std::vector<RankAction>& list = pair[q];
    for (size_t& i = posted[q]; i < list.size();) {
      const RankAction& m = list[i++];
      out.push_back(m);
      if (m.kind == kind && m.op == last) return;
      if (m.kind == RankAction::Send)
        throw std::logic_error("tracegen: a send posted before its op");
    }
    throw std::logic_error("tracegen: a message missing from its pair's order");
  };
  for (const StageOp& o : orders[r]) {
    if (const int from = inputPeer(spec, r, o); from >= 0) {
      const auto& list = pair[from];
      const bool done =
          std::any_of(list.begin(), list.begin() + static_cast<long>(posted[from]),
                      [&](const RankAction& m) { return m.kind == RankAction::Recv && m.op == o; });
      if (!done) postUpTo(from, RankAction::Recv, o);
    }
    out.push_back({RankAction::Run, o, -1});
    if (const int to = outputPeer(spec, r, o); to >= 0) postUpTo(to, RankAction::Send, o);
  }
  return out;
}

}  // namespace bubblescope::tracegen
