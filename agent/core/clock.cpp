#include "agent/core/clock.h"

#include <algorithm>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace bubblescope::agent {

namespace detail {
bool g_ticksAreTsc = false;
std::atomic<uint64_t> g_coarseTicks{0};
}  // namespace detail

void refreshCoarseTicks() {
  detail::g_coarseTicks.store(nowTicks(), std::memory_order_relaxed);
}

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
  refreshCoarseTicks();
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
  if (!recent_.empty() && a.ticks <= recent_.back().ticks) return;
  if (!haveFirst_) {
    first_ = a;
    haveFirst_ = true;
  }
  if (recent_.size() == kRecentAnchors) {
    // The oldest recent anchor moves to the history if it is a second past the last one there.
    const TickAnchor& oldest = recent_.front();
    if (history_.empty() || oldest.realtimeNs - history_.back().realtimeNs >= historySpacingNs_) {
      if (history_.size() == kHistoryAnchors) {
        size_t kept = 0;
        for (size_t i = 0; i < history_.size(); i += 2) history_[kept++] = history_[i];
        history_.resize(kept);
        historySpacingNs_ *= 2;
        historyHint_ = 0;
      }
      history_.push_back(oldest);
    }
    recent_.erase(recent_.begin());
    recentHint_ = 0;
  }
  recent_.push_back(a);
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

int64_t TickConverter::interpolate(const std::vector<TickAnchor>& v, uint64_t ticks,
                                   size_t* hint) const {
  size_t i = *hint;
  if (!(i + 1 < v.size() && v[i].ticks <= ticks && ticks < v[i + 1].ticks)) {
    auto it = std::upper_bound(v.begin(), v.end(), ticks,
                               [](uint64_t t, const TickAnchor& a) { return t < a.ticks; });
    i = static_cast<size_t>(it - v.begin()) - 1;
    *hint = i;
  }
  const TickAnchor& a = v[i];
  const TickAnchor& b = v[i + 1];
  const double slope =
      static_cast<double>(b.realtimeNs - a.realtimeNs) / static_cast<double>(b.ticks - a.ticks);
  return a.realtimeNs + static_cast<int64_t>(static_cast<double>(ticks - a.ticks) * slope);
}

int64_t TickConverter::toNs(uint64_t ticks) const {
  if (identity_) return static_cast<int64_t>(ticks);
  if (recent_.empty()) return 0;
  if (ticks >= recent_.back().ticks || anchorCount() == 1) {
    return extrapolate(recent_.back(), ticks);
  }
  if (ticks >= recent_.front().ticks) return interpolate(recent_, ticks, &recentHint_);
  if (history_.empty() || ticks < history_.front().ticks) {
    return extrapolate(history_.empty() ? recent_.front() : history_.front(), ticks);
  }
  if (ticks >= history_.back().ticks) {
    const std::vector<TickAnchor> gap = {history_.back(), recent_.front()};
    size_t hint = 0;
    return interpolate(gap, ticks, &hint);
  }
  return interpolate(history_, ticks, &historyHint_);
}

}  // namespace bubblescope::agent
