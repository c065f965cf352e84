#include "tests/tracegen/replay_clock.h"

#include <dlfcn.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>

namespace bubblescope::tracegen {
namespace {

using ClockGettime = int (*)(clockid_t, timespec*);

std::atomic<bool> g_replaying{false};
std::atomic<int64_t> g_now{0};

// libc's clock_gettime (the vDSO's speed), past the one this program exports.
int machineClock(clockid_t clock, timespec* ts) {
  static const auto next = reinterpret_cast<ClockGettime>(dlsym(RTLD_NEXT, "clock_gettime"));
  if (next != nullptr) return next(clock, ts);
  return static_cast<int>(syscall(SYS_clock_gettime, clock, ts));
}

}  // namespace

int64_t machineRealtimeNs() {
  timespec ts{};
  machineClock(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

void startReplayClock(int64_t ns) {
  g_now.store(ns, std::memory_order_relaxed);
  g_replaying.store(true, std::memory_order_release);
}

void advanceReplayClock(int64_t ns) {
  int64_t now = g_now.load(std::memory_order_relaxed);
  while (now < ns && !g_now.compare_exchange_weak(now, ns, std::memory_order_relaxed)) {
  }
}

}  // namespace bubblescope::tracegen

// What every CLOCK_REALTIME read in the process comes to, the agent's and the fake CUPTI's
// included (the executable exports it: see CMakeLists.txt).
extern "C" __attribute__((visibility("default"))) int clock_gettime(clockid_t clock,
                                                                    timespec* ts) noexcept {
  using namespace bubblescope::tracegen;
  if (clock != CLOCK_REALTIME || !g_replaying.load(std::memory_order_acquire)) {
    return machineClock(clock, ts);
  }
  const int64_t ns = g_now.fetch_add(1, std::memory_order_relaxed) + 1;
  ts->tv_sec = static_cast<time_t>(ns / 1'000'000'000);
  ts->tv_nsec = static_cast<long>(ns % 1'000'000'000);
  return 0;
}
