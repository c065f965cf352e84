// No path of the analysis is quadratic in what an input can make large (issue 28, rule 2): steps,
// DP replicas and pipeline stages, and the steps and kernels of a trace with no pipeline (its
// utilization). Each is doubled twice on a generated Megatron-LM timeline (or Kineto-like trace)
// and its import and analysis are measured in operations, not wall time, so a loaded machine cannot
// change the verdict: the instructions this thread retires where the CPU's counter is there;
// else its heap allocations (exact, and the analysis allocates per step, gap, op and transfer)
// and, for a quadratic path that allocates nothing, its CPU time (the least of two runs). A linear
// path grows 2x a doubling (less, with the fixed costs), a quadratic one 4x: the bounds are
// generous, 2.6x for counts and 3.2x for CPU time.
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <new>
#include <optional>
#include <string>

#include "analyzer/analyze.h"
#include "tests/analyzer/recognize/hand_trace.h"
#include "tests/support/temp_dir.h"
#include "tests/tracegen/megatron_execution.h"
#include "tests/tracegen/ndtimeline_writer.h"
#include "traces/import/run_import.h"

// Every heap allocation of this test program counted: a replacement operator new (the program's
// own, as the language allows), so only this binary's allocations change. The pair allocates with
// malloc and frees with free; GCC, inlining the replacement delete into a container's
// deallocation, takes free for a mismatch with operator new.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
std::atomic<uint64_t> gAllocations{0};

void* operator new(std::size_t n) {
  gAllocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

namespace bubblescope::tracegen {
namespace {

// Runs `work`: the user-space instructions this thread retired meanwhile; empty where the kernel
// gives no counter (perf_event_paranoid > 2, a container without perf events, no PMU).
std::optional<uint64_t> instructionsOf(const std::function<void()>& work) {
  perf_event_attr attr{};
  attr.type = PERF_TYPE_HARDWARE;
  attr.size = sizeof attr;
  attr.config = PERF_COUNT_HW_INSTRUCTIONS;
  attr.disabled = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  const int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
  if (fd < 0) {
    work();
    return std::nullopt;
  }
  ioctl(fd, PERF_EVENT_IOC_RESET, 0);
  ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  work();
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  uint64_t count = 0;
  const bool read = ::read(fd, &count, sizeof count) == static_cast<ssize_t>(sizeof count);
  close(fd);
  if (!read) return std::nullopt;
  return count;
}

struct Cost {
  std::optional<uint64_t> instructions;
  uint64_t allocations = 0;
  double cpuSeconds = 0;
};

double threadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

// `work` on this thread, three times: the counts of the first, the least CPU time of the three
// (without an instruction count the CPU time is the figure, and on a loaded machine one run in
// two was inflated: DP 400 -> 800 once read 3.2x).
Cost costOf(const std::function<void()>& work) {
  Cost cost;
  for (int run = 0; run < 3; ++run) {
    const uint64_t allocated = gAllocations.load();
    const double cpu = threadCpuSeconds();
    const auto instructions = instructionsOf(work);
    const double seconds = threadCpuSeconds() - cpu;
    if (run == 0) {
      cost.instructions = instructions;
      cost.allocations = gAllocations.load() - allocated;
      cost.cpuSeconds = seconds;
    }
    cost.cpuSeconds = std::min(cost.cpuSeconds, seconds);
  }
  return cost;
}

// Importing and analysing the job's timeline on one thread.
Cost analysisCost(const MegatronJob& job) {
  testing::TempDir dir;
  const auto file = dir.path() / "timeline.json";
  writeNdTimeline(executeMegatron(job), file, /*gzip=*/false);
  return costOf([&] {
    traces::import::LoadOptions load;
    load.threads = 1;
    analysis::AnalyzeOptions options;
    options.threads = 1;
    const auto result = analysis::analyzeRun(traces::import::loadAnyRun({file}, load), options);
    ASSERT_FALSE(result.pipelines.empty());
  });
}

MegatronJob small() {
  MegatronJob job;
  job.pp = 2, job.tp = 1, job.dp = 1, job.m = 2, job.steps = 3;
  job.jitter = 0.02;
  return job;
}

// The CPU time of a doubling from `before` to `after`, measured again (the least of both runs)
// while it reads over `bound`: a loaded machine only inflates a run, and hurts the larger working
// set more (stages 500 -> 1000 once read 4.1x in CI, 2.3x alone), while a quadratic path reads
// 4x however often it is measured.
double cpuGrowth(const std::function<Cost(int)>& costAt, int n, Cost& before, Cost& after,
                 double bound) {
  for (int again = 0; again < 4 && after.cpuSeconds > bound * before.cpuSeconds; ++again) {
    before.cpuSeconds = std::min(before.cpuSeconds, costAt(n / 2).cpuSeconds);
    after.cpuSeconds = std::min(after.cpuSeconds, costAt(n).cpuSeconds);
    std::printf("  measured again: %.3f s -> %.3f s CPU\n", before.cpuSeconds, after.cpuSeconds);
  }
  return after.cpuSeconds / before.cpuSeconds;
}

void expectNearLinear(const char* what, const std::function<Cost(int)>& costAt, int base) {
  std::optional<Cost> previous;
  for (int n = base; n <= 4 * base; n *= 2) {
    Cost cost = costAt(n);
    std::printf("%s %d: %s instructions, %.2f M allocations, %.3f s CPU\n", what, n,
                cost.instructions
                    ? (std::to_string(static_cast<double>(*cost.instructions) / 1e6) + " M").c_str()
                    : "no count of",
                static_cast<double>(cost.allocations) / 1e6, cost.cpuSeconds);
    if (previous) {
      const auto growth = [](double now, double before) { return now / before; };
      const std::string step =
          std::string(what) + " " + std::to_string(n / 2) + " -> " + std::to_string(n);
      if (cost.instructions && previous->instructions) {
        EXPECT_LE(growth(static_cast<double>(*cost.instructions),
                         static_cast<double>(*previous->instructions)),
                  2.6)
            << step << ": instructions";
      } else {
        EXPECT_LE(growth(static_cast<double>(cost.allocations),
                         static_cast<double>(previous->allocations)),
                  2.6)
            << step << ": allocations";
        constexpr double kCpuBound = 3.2;
        EXPECT_LE(cpuGrowth(costAt, n, *previous, cost, kCpuBound), kCpuBound)
            << step << ": CPU time";
      }
    }
    previous = cost;
  }
}

void expectNearLinear(const char* what, const std::function<void(MegatronJob&, int)>& size,
                      int base) {
  expectNearLinear(
      what,
      [&](int n) {
        MegatronJob job = small();
        size(job, n);
        return analysisCost(job);
      },
      base);
}

// One rank with no pipeline, as a PyTorch profiler records it: `steps` ProfilerSteps of 100
// iterations, each a CPU op, its launch and its kernel, a few microseconds idle between kernels.
traces::Run flatRun(int steps) {
  testing::HandTrace h;
  TimeNs at = 1'000'000;
  uint32_t correlation = 1;
  for (int s = 0; s < steps; ++s) {
    h.range(0, at, at + 100 * 12'000, "ProfilerStep#" + std::to_string(s));
    for (int i = 0; i < 100; ++i, at += 12'000, ++correlation) {
      h.range(0, at, at + 9'000, i % 2 ? "aten::mm" : "aten::add");
      h.kernel(0, at + 2'000, correlation, at + 5'000, at + 13'000 - 5'000 * (i % 2));
    }
  }
  h.trace();  // sorted
  traces::Run run;
  run.dir = "flat";
  run.ranks = std::vector<traces::RankTrace>(1);
  run.ranks[0] = std::move(h.t);
  return run;
}

// Analysing the trace (held in memory, not imported) on one thread.
Cost utilizationCost(int steps) {
  const traces::Run run = flatRun(steps);
  return costOf([&] {
    analysis::AnalyzeOptions options;
    options.threads = 1;
    options.utilizationWithoutPipeline = true;
    const auto result = analysis::analyzeRun(run, options);
    ASSERT_TRUE(result.utilization.has_value());
  });
}

TEST(Scaling, StepsAreLinear) {
  expectNearLinear(
      "steps", [](MegatronJob& j, int n) { j.steps = n; }, 1000);
}

TEST(Scaling, ReplicasAreLinear) {
  expectNearLinear(
      "DP replicas", [](MegatronJob& j, int n) { j.dp = n; }, 200);
}

TEST(Scaling, StagesAreLinear) {
  expectNearLinear(
      "stages", [](MegatronJob& j, int n) { j.pp = n; }, 250);
}

// Steps and kernels together: a step's split and gaps look only at its own kernels (a clip of
// every kernel's time per step made 10^4 steps of 10^7 kernels 10^11 operations).
TEST(Scaling, UtilizationStepsAreLinear) {
  expectNearLinear("utilization steps", utilizationCost, 1000);
}

}  // namespace
}  // namespace bubblescope::tracegen
