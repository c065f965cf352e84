#pragma once
// Timestamps. The hot path reads raw ticks: the TSC where it is invariant (a few ns), else
// CLOCK_REALTIME. The writer thread turns ticks into CLOCK_REALTIME ns by interpolating between
// anchors (a tick count and the real time read together) taken at start and every cycle, so the
// file holds CLOCK_REALTIME ns whatever the hot path read.
#include <time.h>

#include <atomic>
#include <cstdint>
#include <vector>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace bubblescope::agent {

inline int64_t readClockNs(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}
inline int64_t realtimeNs() {
  return readClockNs(CLOCK_REALTIME);
}
inline int64_t monotonicNs() {
  return readClockNs(CLOCK_MONOTONIC);
}

namespace detail {
// Set once at start-up, before any event; read on every event.
extern bool g_ticksAreTsc;
// Refreshed by the control thread (refreshCoarseTicks); read by dormant pushes.
extern std::atomic<uint64_t> g_coarseTicks;
}  // namespace detail

// A tick count at most one control-thread tick (0.1 s) old: when a range was pushed while
// dormant, for a live `hang` query, is worth one load, not a clock read (that would double the
// dormant push's cost).
inline uint64_t coarseTicks() {
  return detail::g_coarseTicks.load(std::memory_order_relaxed);
}

// A timestamp for a record: convert with TickConverter on the writer thread.
inline uint64_t nowTicks() {
#if defined(__x86_64__)
  if (__builtin_expect(detail::g_ticksAreTsc, 1)) return __rdtsc();
#endif
  return static_cast<uint64_t>(realtimeNs());
}

// Whether this CPU has an invariant TSC (constant rate, runs in every C-state).
bool cpuHasInvariantTsc();
// Chooses the tick source for the process: the TSC if `wantTsc` and the CPU allows it.
// Returns whether ticks are TSC ticks. Call before the first event.
bool selectTicks(bool wantTsc);
bool ticksAreTsc();
// Sets coarseTicks() to now: at start-up, then every tick of the control thread.
void refreshCoarseTicks();

struct TickAnchor {
  uint64_t ticks = 0;
  int64_t realtimeNs = 0;
};
// Reads ticks and CLOCK_REALTIME together (the best of a few tries: the smallest tick gap).
TickAnchor readTickAnchor();

// Ticks → CLOCK_REALTIME ns. Writer thread only. Between two anchors it interpolates (which
// also follows NTP slewing); outside them it extrapolates with the rate measured over the
// longest baseline. With realtime ticks it is the identity. Memory is bounded: the last
// kRecentAnchors anchors are all kept, older ones one per second (then sparser), so a range
// opened an hour ago still converts between anchors.
class TickConverter {
 public:
  explicit TickConverter(bool identity = false) : identity_(identity) {}
  void addAnchor(const TickAnchor& a);  // anchors must come in increasing tick order
  int64_t toNs(uint64_t ticks) const;
  size_t anchorCount() const { return recent_.size() + history_.size(); }
  double nsPerTick() const { return nsPerTick_; }

  static constexpr size_t kRecentAnchors = 1024;    // about 20 s at one per writer cycle
  static constexpr size_t kHistoryAnchors = 65536;  // 18 h at one per second, then thinned
  static constexpr int64_t kHistorySpacingNs = 1'000'000'000;

 private:
  int64_t extrapolate(const TickAnchor& from, uint64_t ticks) const;
  // Interpolates inside `v` (ticks within [front, back]).
  int64_t interpolate(const std::vector<TickAnchor>& v, uint64_t ticks, size_t* hint) const;

  bool identity_;
  std::vector<TickAnchor> recent_;
  std::vector<TickAnchor> history_;  // older than recent_, sparser
  int64_t historySpacingNs_ = kHistorySpacingNs;
  TickAnchor first_;  // the oldest anchor ever, for the long-baseline rate
  bool haveFirst_ = false;
  double nsPerTick_ = 0.0;         // first_ → newest anchor; 0 until two anchors exist
  mutable size_t recentHint_ = 0;  // last interval used: events come roughly in order
  mutable size_t historyHint_ = 0;
};

}  // namespace bubblescope::agent
