#include "reference_engine/sim/costs.h"

namespace bubblescope::engine {

TimeNs KindCosts::of(OpKind kind) const {
  switch (kind) {
    case OpKind::F:
      return f;
    case OpKind::B:
      return b;
    case OpKind::W:
      return w;
    case OpKind::BW:
      return bw < 0 ? b + w : bw;
  }
  return 0;
}

const Posting& SimCosts::posted() const {
  static const Posting none;
  return posting ? *posting : none;
}

}  // namespace bubblescope::engine
