#include "gui/timeline/kind_totals.h"

namespace bubblescope::gui {

void KindTotals::push(const TimeNs* amounts) {
  const size_t base = running_.size() - static_cast<size_t>(kinds_);
  for (int k = 0; k < kinds_; ++k)
    running_.push_back(running_[base + static_cast<size_t>(k)] + amounts[k]);
}

int KindTotals::dominant(size_t first, size_t last) const {
  int best = 0;
  for (int k = 1; k < kinds_; ++k) {
    if (of(first, last, k) > of(first, last, best)) best = k;
  }
  return best;
}

}  // namespace bubblescope::gui
