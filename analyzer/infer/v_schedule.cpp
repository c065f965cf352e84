#include "analyzer/infer/v_schedule.h"

#include <algorithm>

#include "reference_engine/schedule/schedule.h"

namespace bubblescope::analysis {

using engine::OpKind;

VScheduleMatch matchVSchedule(const std::vector<std::vector<VCall>>& stages) {
  VScheduleMatch out;
  const int p = static_cast<int>(stages.size());
  if (p < 2) return out;
  // Stage 0 sends two messages per microbatch towards the last rank (A0 and G1): m divides half
  // its sends.
  int sends = 0;
  for (const VCall& c : stages[0]) sends += c.kind == CutKind::ActOut;
  if (sends == 0 || sends % 2 != 0) return out;
  // No job runs more microbatches a step than this; it bounds the schedules built for a long
  // trace whose send count has many divisors.
  constexpr int kMostMicrobatches = 1024;
  for (int m = 1; m <= std::min(sends / 2, kMostMicrobatches); ++m) {
    if ((sends / 2) % m != 0) continue;
    const engine::Schedule zbv = engine::Schedule::zbV(p, m);
    std::vector<VLinks> sent;
    for (int s = 0; s < p; ++s) sent.push_back(sendsOf(zbv.stages[s], s, p));
    std::vector<VStageReading> read;
    for (int s = 0; s < p; ++s) {
      // Receives in the order the neighbours sent (NCCL's), else in the order the ops need them.
      VLinks fifo;
      if (s > 0) fifo.down = sent[s - 1].down;
      if (s + 1 < p) fifo.up = sent[s + 1].up;
      // Both may fit a stage; the one whose ops follow their receives more closely is the job's.
      VStageReading r = readStageAs(zbv.stages[s], s, p, stages[s], fifo);
      VStageReading byOps =
          readStageAs(zbv.stages[s], s, p, stages[s], inputsOf(zbv.stages[s], s, p));
      if (byOps.matched && (!r.matched || byOps.receivedRightBefore > r.receivedRightBefore))
        r = std::move(byOps);
      if (!r.matched || (!read.empty() && r.repeats != read.front().repeats)) break;
      read.push_back(std::move(r));
    }
    if (static_cast<int>(read.size()) != p) continue;
    out.matched = true;
    out.name = engine::scheduleName(engine::ScheduleKind::ZbV);
    out.m = m;
    out.steps = read.front().repeats;
    for (VStageReading& r : read) {
      out.ops.push_back(std::move(r.ops));
      out.messages.push_back(std::move(r.messages));
    }
    return out;
  }
  return out;
}

bool isKnownChainOrder(const std::vector<std::vector<OpKind>>& kinds, int m) {
  const int p = static_cast<int>(kinds.size());
  if (p < 1 || m < 1) return false;
  for (const engine::Schedule& known :
       {engine::Schedule::oneF1B(p, m), engine::Schedule::gpipe(p, m)}) {
    bool all = true;
    for (int s = 0; s < p && all; ++s) {
      const auto& pattern = known.stages[s];
      all = !kinds[s].empty() && kinds[s].size() % pattern.size() == 0;
      for (size_t i = 0; i < kinds[s].size() && all; ++i) {
        all = (kinds[s][i] == OpKind::F) == (pattern[i % pattern.size()].kind == OpKind::F);
      }
    }
    if (all) return true;
  }
  return false;
}

}  // namespace bubblescope::analysis
