#include "analyzer/hang/receive_ranges.h"

#include "analyzer/recognize/rule_set.h"

namespace bubblescope::analysis::hang {

std::optional<Receive> receiveRange(std::string_view name) {
  for (const RuleSet& set : builtinRuleSets()) {
    const auto m = set.match(name);
    if (!m) continue;
    if (m->role != Role::Recv) return std::nullopt;  // the set that reads it says what it is
    Receive r;
    r.gradient = m->kind == OpKind::B;
    r.from = m->peer;
    r.stage = m->stage;
    return r;
  }
  return std::nullopt;
}

int senderStage(const Receive& r, int stage, int stages) {
  if (r.from) return *r.from;
  // A label's own stage is a virtual one (torch pipelining numbers chunks on): its neighbour's
  // rank is that stage modulo the pipeline's depth.
  const int at = r.stage.value_or(stage);
  const int from = at + (r.gradient ? 1 : -1);
  if (stages <= 0) return from;
  return ((from % stages) + stages) % stages;
}

bool isStepRange(std::string_view name) {
  for (const RuleSet& set : builtinRuleSets()) {
    if (auto m = set.match(name); m && m->role == Role::Step) return true;
  }
  const auto m = commonMarkers().match(name);
  return m && m->role == Role::Step;
}

}  // namespace bubblescope::analysis::hang
