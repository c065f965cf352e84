#include "reference_engine/executor/clock.h"

#include <time.h>

#include <algorithm>
#include <cerrno>

namespace bubblescope::engine {
namespace {

int64_t now(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

int64_t realtimeNs() {
  return now(CLOCK_REALTIME);
}
int64_t monotonicNs() {
  return now(CLOCK_MONOTONIC);
}

void sleepUntil(int64_t monotonicDeadlineNs) {
  // A timer fires tens of µs late (wake-up latency, larger in VMs): 3-4 % of a 2 ms op. Wake up
  // early by the latency this thread has seen so far, then spin the few µs left.
  constexpr int64_t kMaxLatencyNs = 200'000;
  thread_local int64_t latencyNs = 50'000;
  const int64_t target = monotonicDeadlineNs - latencyNs;
  if (target > monotonicNs()) {
    timespec ts{};
    ts.tv_sec = target / 1'000'000'000;
    ts.tv_nsec = target % 1'000'000'000;
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
    }
    const int64_t late = std::clamp<int64_t>(monotonicNs() - target, 0, kMaxLatencyNs);
    latencyNs += (late - latencyNs) / 8;
  }
  spinUntil(monotonicDeadlineNs);
}

void spinUntil(int64_t monotonicDeadlineNs) {
  while (monotonicNs() < monotonicDeadlineNs) {
  }
}

}  // namespace bubblescope::engine
