// ZB-V (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR'24, §6): the model is cut into 2p
// chunks laid out in a V, stage s holding chunks s and 2p - 1 - s, so each stage both starts and
// ends a microbatch's backward. Hand-crafted pattern of the paper (also the ScheduleZBVZeroBubble
// of torch.distributed.pipelining): zero bubble at T_F = T_B = T_W once m >= 2p - 1, with peak
// activations of 2p chunks = p M_B on every stage.
#include <algorithm>

#include "reference_engine/schedule/checks.h"
#include "reference_engine/schedule/schedule.h"
#include "reference_engine/schedule/trim.h"

namespace bubblescope::engine {

Schedule Schedule::zbV(int p, int m) {
  requireBasics("ZB-V", p, m);
  // The warm-up of stage 0 alone runs 2p - 1 forwards of chunk 0; the pattern is laid out for at
  // least that many microbatches and cut back to m (fewer microbatches leave a bubble).
  const int n = std::max(m, 2 * p - 1);
  Schedule s;
  s.kind = ScheduleKind::ZbV;
  s.p = p;
  s.m = m;
  s.v = 2;
  s.layout = ChunkLayout::V;
  s.stages.resize(p);
  for (int stage = 0; stage < p; ++stage) {
    auto& ops = s.stages[stage];
    ops.reserve(6 * static_cast<size_t>(m));
    CutStage cut(ops, m);
    int f0 = 0, f1 = 0, b0 = 0, b1 = 0;  // next microbatch per kind and chunk
    const auto forward0 = [&] { cut.push(OpKind::F, f0++, 0); };
    const auto forward1 = [&] { cut.push(OpKind::F, f1++, 1); };
    // Warm-up: fill the way down the V, then turn at the bottom (chunk 1 starts the backward).
    const int fill = 2 * (p - stage) - 1;
    for (int i = 0; i < cut.rounds(fill); ++i) forward0();
    cut.skip(fill, {&f0});
    for (int i = 0; i < cut.rounds(stage); ++i) {
      forward1();
      forward0();
    }
    cut.skip(stage, {&f1, &f0});
    for (int i = 0; i < cut.rounds(p - stage); ++i) {
      forward1();
      cut.push(OpKind::B, b1, 1);
      cut.push(OpKind::W, b1++, 1);
    }
    cut.skip(p - stage, {&f1, &b1});
    // Steady: F, B, W on chunk 0 then on chunk 1.
    while (f1 < f0 || f0 < n) {
      // Past m on every counter, the rest of the pattern (the cool-down's Ws included, which
      // start at b0 and b1) keeps nothing.
      if (cut.done({f0, f1, b0, b1})) break;
      if (f0 < n) forward0();
      cut.push(OpKind::B, b0, 0);
      cut.push(OpKind::W, b0++, 0);
      forward1();
      cut.push(OpKind::B, b1, 1);
      cut.push(OpKind::W, b1++, 1);
    }
    if (cut.done({f0, f1, b0, b1})) continue;
    // Cool-down: the remaining Bs first, their Ws deferred into the drain.
    int w0 = b0, w1 = b1;
    for (int i = 0; i < cut.rounds(stage); ++i) {
      cut.push(OpKind::B, b0++, 0);
      cut.push(OpKind::B, b1++, 1);
    }
    cut.skip(stage, {&b0, &b1});
    for (int i = 0; i < cut.rounds(p - stage); ++i) {
      cut.push(OpKind::B, b0++, 0);
      cut.push(OpKind::W, w0++, 0);
    }
    cut.skip(p - stage, {&b0, &w0});
    while (w1 < std::min(b1, m)) cut.push(OpKind::W, w1++, 1);
    while (w0 < std::min(b0, m)) cut.push(OpKind::W, w0++, 0);
  }
  return s;
}

}  // namespace bubblescope::engine
