#include "cli/held_steps.h"

#include <algorithm>
#include <cstdio>

namespace bubblescope::cli {

int64_t heldByAll(const std::vector<HeldFrom>& held) {
  int64_t from = -1;
  for (const HeldFrom& h : held) from = std::max(from, h.wholeFromStep);
  return from;
}

std::string notHeldLine(int64_t step, const std::vector<HeldFrom>& held, int64_t keepNs) {
  std::vector<const HeldFrom*> gone;
  for (const HeldFrom& h : held) {
    if (h.wholeFromStep > step) gone.push_back(&h);
  }
  if (gone.empty()) return "";
  char keep[32];
  std::snprintf(keep, sizeof keep, "%.1f s", static_cast<double>(keepNs) / 1e9);
  return "the watch fell behind the job: " + gone.front()->who +
         (gone.size() > 1 ? " and " + std::to_string(gone.size() - 1) + " more" : "") +
         " no longer held this step's start when it looked (each keeps " + keep +
         "; --keep keeps more)";
}

}  // namespace bubblescope::cli
