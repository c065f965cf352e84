// ZB-H1 and ZB-H2 (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR'24, §3 and Figure 3): the
// backward is split into B (input gradient, on the critical path) and W (weight gradient, which
// nothing downstream waits for), and W is moved to fill the bubbles. Hand-crafted patterns, the
// same for every cost; they reach the paper's bubble sizes when T_W <= T_F (and T_W <= T_B for H2).
#include <algorithm>
#include <vector>

#include "reference_engine/schedule/checks.h"
#include "reference_engine/schedule/schedule.h"
#include "reference_engine/schedule/trim.h"

namespace bubblescope::engine {
namespace {

Schedule splitBackwardSchedule(ScheduleKind kind, int p, int m) {
  Schedule s;
  s.kind = kind;
  s.p = p;
  s.m = m;
  s.stages.resize(p);
  for (auto& ops : s.stages) ops.reserve(3 * static_cast<size_t>(m));
  return s;
}

}  // namespace

// ZB-H1: Megatron's 1F1B warm-up (p - s - 1 forwards, so at most p - s microbatches in flight,
// as in 1F1B), then F, B in turn with each stage's W held back s microbatches behind its B: the
// early Bs reach stage 0 sooner and the held-back Ws fill the drain (the ZB1P of
// torch.distributed.pipelining follows the same rule).
Schedule Schedule::zbH1(int p, int m) {
  requireBasics("ZB-H1", p, m);
  Schedule s = splitBackwardSchedule(ScheduleKind::ZbH1, p, m);
  for (int stage = 0; stage < p; ++stage) {
    auto& ops = s.stages[stage];
    const int warmup = std::min(p - stage - 1, m);
    const int lag = stage;
    int nextW = 0;
    for (int mb = 0; mb < warmup; ++mb) ops.push_back({OpKind::F, mb, 0});
    for (int b = 0; b < m; ++b) {
      if (warmup + b < m) ops.push_back({OpKind::F, warmup + b, 0});
      ops.push_back({OpKind::B, b, 0});
      if (b >= lag) ops.push_back({OpKind::W, nextW++, 0});
    }
    while (nextW < m) ops.push_back({OpKind::W, nextW++, 0});
  }
  return s;
}

// ZB-H2: stage s (d = p - 1 - s hops from the last stage) runs 2d + 1 warm-up forwards, which at
// equal costs is exactly the work that fits before its first B arrives; peak activations reach
// (2p - 1) M_B on stage 0. Then B, W, F each round. In the last 2p - 2 rounds each stage skips W
// (B, F only, then B alone), so Bs run back to back through the drain and the skipped Ws form a
// tail of 2s + 1 Ws: the trapezoid of 1F1B becomes a parallelogram with no bubble inside.
// The pattern is laid out for at least 2p - 1 microbatches and cut back to m.
Schedule Schedule::zbH2(int p, int m) {
  requireBasics("ZB-H2", p, m);
  const int n = std::max(m, 2 * p - 1);
  Schedule s = splitBackwardSchedule(ScheduleKind::ZbH2, p, m);
  for (int stage = 0; stage < p; ++stage) {
    auto& ops = s.stages[stage];
    CutStage cut(ops, m);
    const int d = p - 1 - stage;
    int nextF = 0;
    int nextW = 0;
    for (int i = 0; i < cut.rounds(2 * d + 1); ++i) cut.push(OpKind::F, nextF++, 0);
    cut.skip(2 * d + 1, {&nextF});
    for (int b = 0; b < n; ++b) {
      if (b >= m && cut.done({nextF, nextW})) break;  // the rest keeps nothing
      if (b >= m && nextF >= m && nextF < n && b > n - 2 * p && b <= n - 2) {
        // Rounds of a dropped B and a dropped F: skip to the first that keeps a W, or the end.
        const int k = std::min(n - nextF, n - 1 - b);
        b += k - 1;
        nextF += k;
        continue;
      }
      cut.push(OpKind::B, b, 0);
      if (b <= n - 2 * p) {
        cut.push(OpKind::W, nextW++, 0);
        if (nextF < n) cut.push(OpKind::F, nextF++, 0);
      } else if (b <= n - 2) {
        if (nextF < n) {
          cut.push(OpKind::F, nextF++, 0);
        } else {
          cut.push(OpKind::W, nextW++, 0);
        }
      }
    }
    while (nextW < m) cut.push(OpKind::W, nextW++, 0);
  }
  return s;
}

}  // namespace bubblescope::engine
