#include "agent/core/clock.h"

#include <algorithm>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace bubblescope::agent {

namespace detail {
bool g_ticksAreTsc = false;
}  // namespace detail

bool cpuHasInvariantTsc() {
#if defined(__x86_64__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) == 0 || eax < 0x80000007u) return false;
  if (__get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (edx & (1u << 8)) != 0;  // "invariant TSC" (Intel SDM, AMD APM: TscInvariant)
#else
  return false;
#endif
}

bool selectTicks(bool wantTsc) {
  detail::g_ticksAreTsc = wantTsc && cpuHasInvariantTsc();
  return detail::g_ticksAreTsc;
}

bool ticksAreTsc() {
  return detail::g_ticksAreTsc;
}

TickAnchor readTickAnchor() {
  if (!detail::g_ticksAreTsc) {
    const int64_t now = realtimeNs();
    return {static_cast<uint64_t>(now), now};
  }
  TickAnchor best;
  uint64_t bestGap = UINT64_MAX;
  for (int attempt = 0; attempt < 5; ++attempt) {
    const uint64_t before = nowTicks();
    const int64_t ns = realtimeNs();
    const uint64_t after = nowTicks();
    if (after - before < bestGap) {
      bestGap = after - before;
      best = {before + (after - before) / 2, ns};
    }
  }
  return best;
}

void TickConverter::addAnchor(const TickAnchor& a) {
  if (identity_) return;
  if (!anchors_.empty() && a.ticks <= anchors_.back().ticks) return;
  if (anchors_.empty() && first_.ticks == 0) first_ = a;
  if (anchors_.size() == kMaxAnchors) {
    anchors_.erase(anchors_.begin(), anchors_.begin() + kMaxAnchors / 2);
    hint_ = 0;
  }
  anchors_.push_back(a);
  if (a.ticks > first_.ticks) {
    nsPerTick_ = static_cast<double>(a.realtimeNs - first_.realtimeNs) /
                 static_cast<double>(a.ticks - first_.ticks);
  }
}

int64_t TickConverter::extrapolate(const TickAnchor& from, uint64_t ticks) const {
  const double delta = ticks >= from.ticks ? static_cast<double>(ticks - from.ticks)
                                           : -static_cast<double>(from.ticks - ticks);
  return from.realtimeNs + static_cast<int64_t>(delta * nsPerTick_);
}

int64_t TickConverter::toNs(uint64_t ticks) const {
  if (identity_) return static_cast<int64_t>(ticks);
  if (anchors_.empty()) return 0;
  if (ticks >= anchors_.back().ticks || anchors_.size() == 1) {
    return extrapolate(anchors_.back(), ticks);
  }
  if (ticks < anchors_.front().ticks) return extrapolate(anchors_.front(), ticks);
  // The interval [i, i+1] holding ticks: try the last one used, else search.
  size_t i = hint_;
  if (!(i + 1 < anchors_.size() && anchors_[i].ticks <= ticks && ticks < anchors_[i + 1].ticks)) {
    auto it = std::upper_bound(anchors_.begin(), anchors_.end(), ticks,
                               [](uint64_t t, const TickAnchor& a) { return t < a.ticks; });
    i = static_cast<size_t>(it - anchors_.begin()) - 1;
    hint_ = i;
  }
  const TickAnchor& a = anchors_[i];
  const TickAnchor& b = anchors_[i + 1];
  const double slope =
      static_cast<double>(b.realtimeNs - a.realtimeNs) / static_cast<double>(b.ticks - a.ticks);
  return a.realtimeNs + static_cast<int64_t>(static_cast<double>(ticks - a.ticks) * slope);
}

}  // namespace bubblescope::agent
