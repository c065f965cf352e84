// GPipe and 1F1B (PipeDream-Flush, as Megatron-LM runs it): one chunk per stage, fused backward.
#include <algorithm>
#include <string>

#include "reference_engine/schedule/checks.h"
#include "reference_engine/schedule/schedule.h"

namespace bubblescope::engine {

Schedule Schedule::gpipe(int p, int m) {
  requireBasics("GPipe", p, m);
  Schedule s;
  s.kind = ScheduleKind::GPipe;
  s.p = p;
  s.m = m;
  s.stages.resize(p);
  for (auto& ops : s.stages) {
    for (int mb = 0; mb < m; ++mb) ops.push_back({OpKind::F, mb, 0});
    for (int mb = 0; mb < m; ++mb) ops.push_back({OpKind::BW, mb, 0});
  }
  return s;
}

Schedule Schedule::oneF1B(int p, int m) {
  requireBasics("1F1B", p, m);
  Schedule s;
  s.kind = ScheduleKind::OneF1B;
  s.p = p;
  s.m = m;
  s.stages.resize(p);
  for (int stage = 0; stage < p; ++stage) {
    auto& ops = s.stages[stage];
    // Megatron: warm-up = min(p - s - 1, m) forwards, then one forward and one backward in turn.
    const int warmup = std::min(p - stage - 1, m);
    for (int mb = 0; mb < warmup; ++mb) ops.push_back({OpKind::F, mb, 0});
    for (int i = 0; i < m - warmup; ++i) {
      ops.push_back({OpKind::F, warmup + i, 0});
      ops.push_back({OpKind::BW, i, 0});
    }
    for (int mb = m - warmup; mb < m; ++mb) ops.push_back({OpKind::BW, mb, 0});
  }
  return s;
}

}  // namespace bubblescope::engine
