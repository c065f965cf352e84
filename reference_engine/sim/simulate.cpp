#include "reference_engine/sim/simulate.h"

#include <algorithm>
#include <string>

#include "reference_engine/schedule/dependencies.h"
#include "reference_engine/schedule/dependency_walk.h"
#include "reference_engine/schedule/validate.h"

namespace bubblescope::engine {
namespace {

constexpr int kKinds = 4;

void checkCosts(const Schedule& s, const SimCosts& c) {
  const auto checkKinds = [](const KindCosts& k, const std::string& where) {
    if (k.f < 0 || k.b < 0 || k.w < 0 || k.of(OpKind::BW) < 0) {
      throw CostError("op costs must not be negative (" + where + ")");
    }
  };
  checkKinds(c.perKind, "every stage");
  if (!c.perStage.empty()) {
    if (static_cast<int>(c.perStage.size()) != s.p) {
      throw CostError("per-stage costs list " + std::to_string(c.perStage.size()) +
                      " stages for p=" + std::to_string(s.p));
    }
    for (int st = 0; st < s.p; ++st) checkKinds(c.perStage[st], "stage " + std::to_string(st));
  }
  const Posting& post = c.posted();
  if (!post.receiveAfterPrevious.empty()) {
    bool shaped = post.receiveAfterPrevious.size() == s.stages.size();
    for (size_t st = 0; shaped && st < s.stages.size(); ++st) {
      shaped = post.receiveAfterPrevious[st].size() == s.stages[st].size();
    }
    if (!shaped) throw CostError("receive-after-previous flags are not shaped like the schedule");
  }
  if (!post.sentAfter.empty()) {
    bool shaped = post.sentAfter.size() == s.stages.size();
    for (size_t st = 0; shaped && st < s.stages.size(); ++st) {
      shaped = post.sentAfter[st].size() == s.stages[st].size();
    }
    if (!shaped) throw CostError("sent-after positions are not shaped like the schedule");
  }
  if (!post.awaitBegin.empty() || !post.awaits.empty()) {
    size_t ops = 0;
    for (const auto& stage : s.stages) ops += stage.size();
    bool shaped = post.awaitBegin.size() == ops + 1 && post.awaitBegin.front() == 0 &&
                  post.awaitBegin.back() == static_cast<int32_t>(post.awaits.size()) &&
                  std::is_sorted(post.awaitBegin.begin(), post.awaitBegin.end());
    if (!shaped) throw CostError("awaited ops are not shaped like the schedule");
    for (const Posting::Await& a : post.awaits) {
      if (a.stage < 0 || a.stage >= s.p || a.index < 0 ||
          a.index >= static_cast<int32_t>(s.stages[a.stage].size())) {
        throw CostError("an awaited op is not one of the schedule's (stage " +
                        std::to_string(a.stage) + ", position " + std::to_string(a.index) + ")");
      }
    }
  }
  if (!c.perOp.empty()) {
    if (c.perOp.size() != s.stages.size()) {
      throw CostError("per-op costs list " + std::to_string(c.perOp.size()) +
                      " stages for p=" + std::to_string(s.p));
    }
    for (int st = 0; st < s.p; ++st) {
      if (c.perOp[st].size() != s.stages[st].size()) {
        throw CostError("per-op costs of stage " + std::to_string(st) + " list " +
                        std::to_string(c.perOp[st].size()) + " ops for its " +
                        std::to_string(s.stages[st].size()));
      }
      for (TimeNs t : c.perOp[st]) {
        if (t < 0)
          throw CostError("op costs must not be negative (stage " + std::to_string(st) + ")");
      }
    }
  }
  if (c.transfer < 0) throw CostError("transfer latency must not be negative");
}

// Per (stage, kind, chunk): an op's time and its activation memory change, looked up per op.
struct ChunkTables {
  int v;
  std::vector<TimeNs> time;
  std::vector<int64_t> memory;
  size_t at(int stage, OpKind kind, int chunk) const {
    return (static_cast<size_t>(stage) * kKinds + static_cast<size_t>(kind)) * v + chunk;
  }
};

void fillChunkTables(const Schedule& s, const SimCosts& c, ChunkTables& t) {
  t.v = s.v;
  t.time.assign(static_cast<size_t>(s.p) * kKinds * s.v, 0);
  t.memory.assign(t.time.size(), 0);
  for (int st = 0; st < s.p; ++st) {
    const KindCosts& k = c.stage(st);
    for (int chunk = 0; chunk < s.v; ++chunk) {
      const int64_t mB = chunkShare(c.memory.mB, chunk, s.v);
      const int64_t mW = chunkShare(c.memory.mW, chunk, s.v);
      for (OpKind kind : {OpKind::F, OpKind::B, OpKind::W, OpKind::BW}) {
        t.time[t.at(st, kind, chunk)] = chunkShare(k.of(kind), chunk, s.v);
      }
      t.memory[t.at(st, OpKind::F, chunk)] = mB;
      t.memory[t.at(st, OpKind::B, chunk)] = mW - mB;
      t.memory[t.at(st, OpKind::W, chunk)] = -mW;
      t.memory[t.at(st, OpKind::BW, chunk)] = -mB;
    }
  }
}

// What a simulation needs beside its result, kept per thread: the analysis simulates each step
// of a run several times, and these lists allocated anew each time cost more than the
// simulation of a small step itself (issue 28).
struct SimScratch {
  ChunkTables tables{1, {}, {}};
  std::vector<TimeNs> stageFree;
  WalkScratch walk;
  // The inputs as Posting::sentAfter moves them, where it moves any (observedGraph).
  std::vector<int32_t> inputIndex;
};

// The graph whose inputs wait for the ops Posting::sentAfter names (their input index in
// `inputIndex`, where it names any), and whose ops also await Posting::awaits.
GraphView observedGraph(const Schedule& s, const OpGraph& g, const Posting& c,
                        std::vector<int32_t>& inputIndex) {
  GraphView out(g);
  if (!c.awaits.empty()) {
    out.awaitBegin = c.awaitBegin;
    out.awaits = c.awaits;
  }
  bool moved = false;
  for (int st = 0; st < s.p && !c.sentAfter.empty(); ++st) {
    for (size_t local = 0; local < c.sentAfter[st].size(); ++local) {
      const int32_t j = c.sentAfter[st][local];
      if (j < 0) continue;
      const int32_t i = g.stageBegin[st] + static_cast<int32_t>(local);
      const int32_t from = g.inputStage[i];
      if (from < 0 || from == st || j <= g.inputIndex[i] ||
          j >= static_cast<int32_t>(s.stages[from].size())) {
        throw CostError("a sent-after position on stage " + std::to_string(st) +
                        " names no later op of its input's stage");
      }
      if (!moved) inputIndex.assign(g.inputIndex.begin(), g.inputIndex.end());
      moved = true;
      inputIndex[i] = j;
    }
  }
  if (moved) out.inputIndex = inputIndex;
  return out;
}

// When op i (on stage st, whose previous op ended at `stageFree`) had its input in `r`, whose
// ops it depends on have run: its input's end, plus the transfer from another stage (and no
// earlier than the stage was free, where its receive was posted after the previous op), and the
// same for every transfer it awaits; 0 without an input.
TimeNs readyOf(const GraphView& g, const Posting& posted, TimeNs transfer, const SimResult& r,
               int st, int32_t i, TimeNs stageFree) {
  TimeNs ready = 0;
  const int32_t from = g.inputStage[i];
  if (from == st) {
    ready = r.stages[from].ops[g.inputIndex[i]].end;
  } else if (from >= 0) {
    TimeNs moves = r.stages[from].ops[g.inputIndex[i]].end;
    const int32_t local = i - g.stageBegin[st];
    if (!posted.receiveAfterPrevious.empty() && posted.receiveAfterPrevious[st][local]) {
      moves = std::max(moves, stageFree);
    }
    ready = moves + transfer;
  }
  if (!g.awaitBegin.empty()) {
    for (int32_t e = g.awaitBegin[i]; e < g.awaitBegin[i + 1]; ++e) {
      const TimeNs moved = r.stages[g.awaits[e].stage].ops[g.awaits[e].index].end;
      ready = std::max(ready, moved + transfer);
    }
  }
  return ready;
}

}  // namespace

PreparedSchedule::PreparedSchedule(const Schedule& schedule) : schedule_(&schedule) {
  if (auto problems = structuralProblems(schedule, &graph_); !problems.empty()) {
    throw ScheduleError(problems.front().message);
  }
}

void simulate(const PreparedSchedule& prepared, const SimCosts& costs, SimResult& r) {
  const Schedule& s = prepared.schedule();
  checkCosts(s, costs);
  thread_local SimScratch scratch;
  const Posting& posted = costs.posted();
  const GraphView g = observedGraph(s, prepared.graph(), posted, scratch.inputIndex);
  const ChunkTables& tables = scratch.tables;
  fillChunkTables(s, costs, scratch.tables);

  r.stages.resize(s.p);
  for (int st = 0; st < s.p; ++st) {
    r.stages[st].ops.resize(s.stages[st].size());
    r.stages[st].busy = 0;
    r.stages[st].peakMemory = 0;
  }
  std::vector<TimeNs>& stageFree = scratch.stageFree;
  stageFree.assign(s.p, 0);
  const bool measured = !costs.perOp.empty();

  walkInDependencyOrder(
      g,
      [&](int st, int32_t i) {
        const int local = i - g.stageBegin[st];
        const Op& op = s.stages[st][local];
        const TimeNs duration =
            measured ? costs.perOp[st][local] : tables.time[tables.at(st, op.kind, op.chunk)];
        OpTiming& t = r.stages[st].ops[local];
        t.start =
            std::max(readyOf(g, posted, costs.transfer, r, st, i, stageFree[st]), stageFree[st]);
        t.end = t.start + duration;
        stageFree[st] = t.end;
      },
      scratch.walk);
  // Named by the schedule's own graph: the stuck op's input, which the posting does not change.
  if (auto deadlock = describeDeadlock(s, prepared.graph(), scratch.walk.position)) {
    throw ScheduleError(deadlock->message);
  }

  r.makespan = 0;
  r.longestStage = 0;
  r.peakMemory = 0;
  r.bubbleRate = 0;
  r.idleFraction = 0;
  for (int st = 0; st < s.p; ++st) {
    StageTimeline& stage = r.stages[st];
    int64_t held = 0;
    for (size_t i = 0; i < stage.ops.size(); ++i) {
      const Op& op = s.stages[st][i];
      stage.busy += stage.ops[i].end - stage.ops[i].start;
      held += tables.memory[tables.at(st, op.kind, op.chunk)];
      stage.peakMemory = std::max(stage.peakMemory, held);
    }
    stage.firstStart = stage.ops.empty() ? 0 : stage.ops.front().start;
    stage.lastEnd = stage.ops.empty() ? 0 : stage.ops.back().end;
    r.makespan = std::max(r.makespan, stage.lastEnd);
    r.peakMemory = std::max(r.peakMemory, stage.peakMemory);
    if (stage.span() > r.stages[r.longestStage].span()) r.longestStage = st;
  }
  TimeNs idle = 0;
  for (auto& stage : r.stages) {
    stage.idle = r.makespan - stage.busy;
    idle += stage.idle;
  }
  const StageTimeline& longest = r.stages[r.longestStage];
  if (longest.span() > 0) {
    r.bubbleRate = 1.0 - static_cast<double>(longest.busy) / static_cast<double>(longest.span());
  }
  if (r.makespan > 0) {
    r.idleFraction = static_cast<double>(idle) / (static_cast<double>(r.makespan) * s.p);
  }
}

SimResult simulate(const PreparedSchedule& prepared, const SimCosts& costs) {
  SimResult r;
  simulate(prepared, costs, r);
  return r;
}

SimResult simulate(const Schedule& schedule, const SimCosts& costs) {
  return simulate(PreparedSchedule(schedule), costs);
}

std::vector<std::vector<TimeNs>> readyTimes(const PreparedSchedule& prepared, const SimCosts& costs,
                                            const SimResult& r) {
  const Schedule& s = prepared.schedule();
  std::vector<int32_t> inputIndex;
  const Posting& posted = costs.posted();
  const GraphView g = observedGraph(s, prepared.graph(), posted, inputIndex);
  std::vector<std::vector<TimeNs>> ready(static_cast<size_t>(s.p));
  for (int st = 0; st < s.p; ++st) {
    const auto& ops = r.stages[st].ops;
    ready[st].reserve(ops.size());
    for (size_t local = 0; local < ops.size(); ++local) {
      // A stage runs its ops in order: the one before ended as this one's stage became free.
      const TimeNs stageFree = local == 0 ? 0 : ops[local - 1].end;
      const int32_t i = g.stageBegin[st] + static_cast<int32_t>(local);
      ready[st].push_back(readyOf(g, posted, costs.transfer, r, st, i, stageFree));
    }
  }
  return ready;
}

}  // namespace bubblescope::engine
