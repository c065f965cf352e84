// What a fresh ring costs the recording thread, and what a busy thread of the same process on
// the other CPU costs it. Each run maps a new 256 MB ring (as the agent does, with or without
// writing every page once at set-up) and times 2 M range-sized records through the agent's
// EventRing, each stamped with two TSC reads like a push + pop. The neighbour is another thread
// of this process: idle, an ALU loop, an mprotect loop or an fdatasync loop (the two system calls
// that measurably slow the other CPU on a shadow-paging guest), or a consumer draining the same
// ring: fast enough to stay right behind the producer, or slow enough to fall far behind.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <x86intrin.h>

#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "agent/core/event_ring.h"
#include "agent/core/ring_memory.h"

namespace {

using bubblescope::agent::EventRing;
using bubblescope::agent::RecordHeader;

constexpr size_t kRingBytes = size_t{256} << 20;
constexpr int kRecords = 2'000'000;  // 128 MB of 64-byte records: half the ring
constexpr uint32_t kRecordBytes = 64;

enum Neighbour { kIdle, kCompute, kMprotect, kFdatasync, kDrainClose, kDrainBehind };

std::atomic<EventRing*> g_ring{nullptr};  // the ring being filled, for the draining neighbours

// Drains what `ring` has published, spending `work` multiply-adds on each record.
void drainOnce(EventRing& ring, int work) {
  volatile uint64_t sink = 0;
  ring.drain(
      [&](const RecordHeader& h, const uint8_t* payload, const char*) {
        uint64_t x = h.size8 + reinterpret_cast<const uint64_t*>(payload)[0];
        for (int k = 0; k < work; ++k) x = x * 31 + static_cast<uint64_t>(k);
        sink = x;
      },
      4096);
}

void neighbourLoop(Neighbour what, const std::atomic<bool>& stop) {
  const std::string path = "/tmp/bubblescope-ring-bench-" + std::to_string(getpid());
  const int fd = what == kFdatasync ? open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600) : -1;
  void* page = what == kMprotect
                   ? mmap(nullptr, 1 << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                   : nullptr;
  char block[4096] = {};
  volatile uint64_t sink = 0;
  for (uint64_t i = 0; !stop.load(std::memory_order_relaxed); ++i) {
    switch (what) {
      case kIdle:
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        break;
      case kCompute:
        for (int k = 0; k < 1000; ++k) sink = sink * 31 + static_cast<uint64_t>(k);
        break;
      case kMprotect:
        mprotect(page, 1 << 20, PROT_READ | PROT_WRITE);
        static_cast<volatile char*>(page)[0] = 1;
        mprotect(page, 1 << 20, PROT_NONE);
        break;
      case kDrainClose:
      case kDrainBehind:
        if (EventRing* ring = g_ring.load(std::memory_order_acquire)) {
          drainOnce(*ring, what == kDrainClose ? 5 : 150);
        }
        break;
      case kFdatasync:
        if (pwrite(fd, block, sizeof block, static_cast<off_t>((i % 256) * sizeof block)) > 0) {
          fdatasync(fd);
        }
        break;
    }
  }
  if (fd >= 0) {
    close(fd);
    unlink(path.c_str());
  }
  if (page != nullptr) munmap(page, 1 << 20);
}

// One run: a fresh ring, kRecords records, timed by hand (the mapping is not).
void freshRing(benchmark::State& state) {
  const bool touch = state.range(0) != 0;
  const auto neighbour = static_cast<Neighbour>(state.range(1));
  std::atomic<bool> stop{false};
  std::thread other(neighbourLoop, neighbour, std::cref(stop));
  for (auto _ : state) {
    uint8_t* mem = bubblescope::agent::mapRingMemory(kRingBytes, touch);
    if (mem == nullptr) {
      state.SkipWithError("cannot map the ring");
      break;
    }
    EventRing ring;
    ring.attach(mem, kRingBytes);
    g_ring.store(&ring, std::memory_order_release);
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < kRecords; ++k) {
      const uint64_t start = __rdtsc();
      const uint64_t end = __rdtsc();
      uint8_t* at = ring.reserve(kRecordBytes);
      *reinterpret_cast<RecordHeader*>(at) = RecordHeader{1, 48, 6, kRecordBytes / 8};
      auto* words = reinterpret_cast<uint64_t*>(at + sizeof(RecordHeader));
      words[0] = start;
      words[1] = end;
      words[2] = 0;
      words[3] = 0;
      words[4] = static_cast<uint64_t>(k);
      words[5] = 0;
      std::memcpy(words + 6, "F mb=3\0", 8);
      ring.commit(kRecordBytes);
    }
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - t0;
    state.SetIterationTime(took.count());
    state.counters["ns_per_record"] = took.count() * 1e9 / kRecords;
    g_ring.store(nullptr, std::memory_order_release);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // a drain in progress ends
    munmap(mem, kRingBytes);
  }
  stop.store(true);
  other.join();
}

}  // namespace

BENCHMARK(freshRing)
    ->ArgNames({"touch", "neighbour"})
    ->ArgsProduct({{0, 1}, {kIdle}})
    ->Args({1, kCompute})
    ->Args({1, kMprotect})
    ->Args({1, kFdatasync})
    ->Args({1, kDrainClose})
    ->Args({1, kDrainBehind})
    ->Iterations(1)
    ->Repetitions(3)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
