#include "reference_engine/sim/paper_formulas.h"

#include <algorithm>

namespace bubblescope::engine {

std::optional<PaperPrediction> paperPrediction(const Schedule& s, const KindCosts& k) {
  const int p = s.p;
  const int m = s.m;
  const TimeNs f = k.f, b = k.b, w = k.w, bw = k.of(OpKind::BW);
  PaperPrediction out;
  switch (s.kind) {
    case ScheduleKind::GPipe:
      out.bubbleFormula = "(p-1)(T_F+T_B+T_W)";
      out.bubble = (p - 1) * (f + bw);
      out.memoryFormula = "mM_B";
      out.peakActivations = m;
      return out;
    case ScheduleKind::OneF1B:
      out.bubbleFormula = "(p-1)(T_F+T_B+T_W)";
      out.bubble = (p - 1) * (f + bw);
      out.memoryFormula = "pM_B";
      out.peakActivations = std::min(p, m);
      return out;
    case ScheduleKind::Interleaved1F1B:
      // Narayanan et al.: the bubble shrinks by v, each chunk costing 1/v of the stage.
      out.bubbleFormula = "(p-1)(T_F+T_B+T_W)/v";
      out.bubble = (p - 1) * (f + bw) / s.v;
      out.conditions = "T_F and T_B+T_W divisible by v";
      out.conditionsHold = f % s.v == 0 && bw % s.v == 0;
      // Megatron: stage 0 warms up 2(p-1) + (v-1)p chunk forwards, then holds one more.
      out.memoryFormula = "(2(p-1)+(v-1)p+1)M_B/v";
      out.peakActivations =
          static_cast<double>(std::min(2 * (p - 1) + (s.v - 1) * p + 1, m * s.v)) / s.v;
      return out;
    case ScheduleKind::ZbH1:
      out.bubbleFormula = "(p-1)(T_F+T_B-T_W)";
      out.bubble = (p - 1) * (f + b - w);
      out.conditions = "T_W <= T_F and m >= p";
      out.conditionsHold = w <= f && m >= p;
      out.memoryFormula = "pM_B";
      out.peakActivations = std::min(p, m);
      return out;
    case ScheduleKind::ZbH2:
      out.bubbleFormula = "(p-1)(T_F+T_B-2T_W)";
      out.bubble = (p - 1) * (f + b - 2 * w);
      out.conditions = "T_W <= T_F, T_W <= T_B and m >= 2p-1";
      out.conditionsHold = w <= f && w <= b && m >= 2 * p - 1;
      out.memoryFormula = "(2p-1)M_B";
      out.peakActivations = std::min(2 * p - 1, m);
      return out;
    case ScheduleKind::ZbV:
      out.bubbleFormula = "0";
      out.bubble = 0;
      out.conditions = "T_F = T_B = T_W and m >= 2p-1";
      out.conditionsHold = f == b && b == w && m >= 2 * p - 1;
      out.memoryFormula = "pM_B";
      out.peakActivations = std::min(p, m);
      return out;
    case ScheduleKind::Custom:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace bubblescope::engine
