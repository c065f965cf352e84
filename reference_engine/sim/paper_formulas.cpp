#include "reference_engine/sim/paper_formulas.h"

#include "reference_engine/schedule/schedule_table.h"

namespace bubblescope::engine {

std::optional<PaperPrediction> paperPrediction(const Schedule& s, const KindCosts& k) {
  const NamedSchedule* named = scheduleOfKind(s.kind);
  if (!named || !named->paper) return std::nullopt;
  return named->paper(s.p, s.m, s.v, {k.f, k.b, k.w, k.of(OpKind::BW)});
}

}  // namespace bubblescope::engine
