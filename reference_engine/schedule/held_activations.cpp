#include "reference_engine/schedule/held_activations.h"

#include <algorithm>

namespace bubblescope::engine {

std::vector<double> heldActivations(const Schedule& s) {
  std::vector<double> out;
  out.reserve(s.stages.size());
  for (const auto& ops : s.stages) {
    int held = 0, peak = 0;  // chunk activations
    for (const Op& op : ops) {
      if (op.kind == OpKind::F) peak = std::max(peak, ++held);
      if (op.kind == OpKind::W || op.kind == OpKind::BW) --held;
    }
    out.push_back(static_cast<double>(peak) / std::max(1, s.v));
  }
  return out;
}

}  // namespace bubblescope::engine
