#include "tests/analyzer/synthetic_run.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "reference_engine/sim/costs.h"
#include "traces/model/sort.h"

namespace bubblescope::testing {
namespace {

using engine::Op;
using engine::OpKind;
using traces::RankTrace;

std::string opName(const Op& op) {
  std::string s = std::string(engine::kindName(op.kind)) + " mb=" + std::to_string(op.mb);
  if (op.chunk) s += " ch=" + std::to_string(op.chunk);
  return s;
}

std::string commName(bool send, bool gradient, int mb, int chunk, int peer) {
  std::string s =
      std::string(send ? "SEND " : "RECV ") + (gradient ? "B" : "F") + " mb=" + std::to_string(mb);
  if (chunk) s += " ch=" + std::to_string(chunk);
  return s + (send ? " to=" : " from=") + std::to_string(peer);
}

void addRange(RankTrace& t, traces::ThreadIndex thread, TimeNs start, TimeNs end,
              const std::string& name, uint16_t depth) {
  t.ranges->start.push_back(start);
  t.ranges->end.push_back(end);
  t.ranges->thread.push_back(thread);
  t.ranges->domain.push_back(0);
  t.ranges->name.push_back(t.strings.intern(name));
  t.ranges->depth.push_back(depth);
  t.ranges->kind.push_back(traces::RangeKind::PushPop);
}

TimeNs defaultCost(const Op& op) {
  return op.kind == OpKind::BW ? 4'000'000 : 2'000'000;
}

}  // namespace

traces::Run synthesize(const SyntheticJob& job) {
  const engine::Schedule& s = job.schedule;
  const int p = s.p;
  traces::Run run;
  run.dir = "synthetic";
  run.ranks.resize(p);
  for (int st = 0; st < p; ++st) {
    RankTrace& t = run.ranks[st];
    t.file = "synthetic/rank-" + std::to_string(st) + ".sqlite";
    t.meta.rank = st;
    t.meta.worldSize = p;
    t.meta.runId = "synthetic";
    t.meta.command = "synthetic " + std::string(engine::scheduleName(s.kind));
    t.meta.extra["BUBBLESCOPE_PP_RANK"] = std::to_string(st);
    t.meta.extra["BUBBLESCOPE_PP_SIZE"] = std::to_string(p);
    t.threadIndex(1000 + st);  // main thread: index 0
    t.threadIndex(2000 + st);  // send thread: index 1
  }
  auto skew = [&](int st) {
    return st < static_cast<int>(job.clockSkew.size()) ? job.clockSkew[st] : 0;
  };
  const int last = s.virtualStages() - 1;
  std::vector<int64_t> live(p, job.weightBytes);
  auto sample = [&](int st, TimeNs at, int64_t change) {
    if (job.activationBytes == 0) return;
    live[st] += change;
    traces::MemoryUsage& m = run.ranks[st].memory;
    m.start.push_back(at + skew(st));
    m.device.push_back(0);
    m.allocated.push_back(live[st]);
    m.reserved.push_back(traces::kBytesUnknown);
  };
  for (int st = 0; st < p; ++st) sample(st, job.start, 0);

  TimeNs stepStart = job.start;
  for (int step = 0; step < job.steps; ++step) {
    // end[st][i] of each op once known; ends of F and B/BW per (virtual stage, mb) for inputs.
    std::vector<std::vector<TimeNs>> end(p);
    std::map<std::tuple<int, int, bool>, std::pair<TimeNs, int>> produced;  // (vs, mb, grad)
    std::vector<size_t> next(p, 0);
    std::vector<TimeNs> free(p, stepStart);
    for (int st = 0; st < p; ++st) end[st].assign(s.stages[st].size(), 0);
    size_t remaining = 0;
    for (const auto& ops : s.stages) remaining += ops.size();
    while (remaining > 0) {
      bool progressed = false;
      for (int st = 0; st < p; ++st) {
        while (next[st] < s.stages[st].size()) {
          const Op& op = s.stages[st][next[st]];
          const int vs = s.virtualStage(st, op.chunk);
          const bool forward = op.kind == OpKind::F;
          const bool input = op.kind != OpKind::W && (forward ? vs > 0 : vs < last);
          TimeNs arrival = 0;
          int fromStage = -1;
          if (input) {
            auto it = produced.find({forward ? vs - 1 : vs + 1, op.mb, !forward});
            if (it == produced.end()) break;  // not produced yet
            fromStage = it->second.second;
            TimeNs delay = 0;
            if (auto d = job.commDelay.find(fromStage); d != job.commDelay.end()) delay = d->second;
            arrival = it->second.first + job.transfer + delay;
            RankTrace& sender = run.ranks[fromStage];
            addRange(sender, 1, it->second.first + skew(fromStage), arrival + skew(fromStage),
                     commName(true, !forward, op.mb, s.chunkOf(forward ? vs - 1 : vs + 1), st), 0);
          }
          RankTrace& t = run.ranks[st];
          const TimeNs waitFrom = free[st];
          TimeNs ready = std::max(waitFrom, arrival);
          if (input) {
            addRange(t, 0, waitFrom + skew(st), ready + skew(st),
                     commName(false, !forward, op.mb, op.chunk, fromStage), 1);
          }
          TimeNs stall = 0;
          if (auto d = job.stall.find({st, step, op.mb, op.kind}); d != job.stall.end()) {
            stall = d->second;
            if (job.hostBusy) {
              addRange(t, 0, ready + skew(st), ready + stall + skew(st), "dataloader", 1);
            }
          }
          const TimeNs start = ready + stall;
          const TimeNs cost = job.cost ? job.cost(st, step, op) : defaultCost(op);
          const TimeNs finish = start + cost;
          addRange(t, 0, start + skew(st), finish + skew(st), opName(op), 1);
          const int64_t share = engine::chunkShare(job.activationBytes, op.chunk, s.v);
          if (op.kind == OpKind::F) sample(st, start, share);
          if (op.kind == OpKind::W || op.kind == OpKind::BW) sample(st, finish, -share);
          end[st][next[st]] = finish;
          free[st] = finish;
          if (op.kind == OpKind::F) produced[{vs, op.mb, false}] = {finish, st};
          if (op.kind == OpKind::B || op.kind == OpKind::BW)
            produced[{vs, op.mb, true}] = {finish, st};
          ++next[st];
          --remaining;
          progressed = true;
        }
      }
      if (!progressed) throw std::logic_error("synthetic schedule deadlocks");
    }
    // Gradient sync (all stages join), optimizer, then the next step starts everywhere.
    const TimeNs joined = *std::max_element(free.begin(), free.end());
    TimeNs stepEnd = 0;
    for (int st = 0; st < p; ++st) {
      RankTrace& t = run.ranks[st];
      const TimeNs syncEnd = joined + job.gradSync;
      addRange(t, 0, free[st] + skew(st), syncEnd + skew(st), "grad_sync", 1);
      addRange(t, 0, syncEnd + skew(st), syncEnd + job.optimizer + skew(st), "optimizer", 1);
      addRange(t, 0, stepStart + skew(st), syncEnd + job.optimizer + skew(st),
               "step " + std::to_string(step), 0);
      stepEnd = std::max(stepEnd, syncEnd + job.optimizer);
    }
    stepStart = stepEnd;
  }
  for (auto& t : run.ranks) traces::sortEvents(t);
  return run;
}

}  // namespace bubblescope::testing
