// NVTX push+pop cost with no agent, with the agent dormant, with the agent recording, and in a
// memory window (watch, asked for over the process's own control socket), in one run (budgets:
// ≈ 2 ns, ≤ 10 ns, ≤ 40 ns per pair; docs/agent.md). The loops live in two
// copies of one shared library (nvtx_bench_module.cpp): NVTX finds no tool for the first and
// the agent for the second. Recording runs a fixed number of iterations into rings large enough
// to hold them, so the figure is the recording path, not the drop path; a forked parent reads
// the trace afterwards and reports what was recorded and dropped. On a shared machine compare
// the CPU column: wall time includes preemption by other processes.
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include "agent/control/client.h"
#include "traces/sqlite/run_reader.h"

namespace {

using Loop = void (*)(benchmark::State&);
using Control = void (*)(const char*);

constexpr int64_t kRecordIterations = 2'000'000;  // 2 M ranges ≈ 130 MB of ring

struct Module {
  Loop pushPop = nullptr;
  Loop registered = nullptr;
  Control control = nullptr;
  void (*oneRange)() = nullptr;
};

Module load(const char* path) {
  void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    std::fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
    std::exit(1);
  }
  Module m;
  m.pushPop = reinterpret_cast<Loop>(dlsym(h, "benchPushPop"));
  m.registered = reinterpret_cast<Loop>(dlsym(h, "benchDomainPushPopRegistered"));
  m.control = reinterpret_cast<Control>(dlsym(h, "benchControl"));
  m.oneRange = reinterpret_cast<void (*)()>(dlsym(h, "benchOneRange"));
  reinterpret_cast<void (*)()>(dlsym(h, "benchWarmUp"))();  // NVTX initialises this module
  return m;
}

Module g_plain, g_agent;

// Recording: open a window, run, close it, then give the writer time to drain before the next
// repetition (outside the timed loop).
void recording(benchmark::State& state, Loop loop) {
  g_agent.control("start");
  g_agent.oneRange();  // the thread's first event (ring set-up) stays out of the timing
  loop(state);
  g_agent.control("stop");
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
}

// A request over this process's own control socket (the agent serves it on its thread).
bool askSelf(const std::string& line) {
  std::vector<std::string> problems;
  const auto self = bubblescope::control::findAgent(
      getpid(), bubblescope::control::dirEnvironmentFromProcess(), geteuid(), &problems);
  if (!self) return false;
  const auto replies =
      bubblescope::control::exchangeAll({*self}, {line + "\n"}, std::chrono::seconds(5));
  return replies[0].reply.ok;
}

// A memory window: the same hot path as recording, the writer filling memory instead of a file.
void memoryWindow(benchmark::State& state, Loop loop) {
  if (!askSelf("watch keep=5")) {
    state.SkipWithError("the agent refused watch (or has no control socket)");
    return;
  }
  g_agent.oneRange();
  loop(state);
  askSelf("stop");
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
}

int runBenchmarks(int argc, char** argv, const std::filesystem::path& out) {
  // No tool for the first module: NVTX makes its calls no-ops for good.
  unsetenv("NVTX_INJECTION64_PATH");
  g_plain = load(PLAIN_MODULE);
  // The agent for the second, dormant until a window opens.
  // BUBBLESCOPE_BENCH_AGENT: another build of the agent (a baseline), for paired comparisons.
  const char* agent = std::getenv("BUBBLESCOPE_BENCH_AGENT");
  setenv("NVTX_INJECTION64_PATH", agent != nullptr && *agent != 0 ? agent : AGENT_LIBRARY, 1);
  setenv("BUBBLESCOPE_DORMANT", "1", 1);
  setenv("BUBBLESCOPE_OUTPUT_DIR", out.c_str(), 1);
  setenv("BUBBLESCOPE_BUFFER_KB", "262144", 1);
  setenv("BUBBLESCOPE_RUNTIME_DIR", (out.string() + "-rt").c_str(), 1);
  g_agent = load(AGENT_MODULE);

  benchmark::RegisterBenchmark("nvtx_push_pop/no_agent",
                               [](benchmark::State& s) { g_plain.pushPop(s); });
  benchmark::RegisterBenchmark("nvtx_push_pop/agent_dormant",
                               [](benchmark::State& s) { g_agent.pushPop(s); });
  benchmark::RegisterBenchmark("nvtx_push_pop/agent_recording",
                               [](benchmark::State& s) { recording(s, g_agent.pushPop); })
      ->Iterations(kRecordIterations)
      ->Repetitions(5)
      ->ReportAggregatesOnly(true);
  benchmark::RegisterBenchmark("nvtx_push_pop/agent_memory_window",
                               [](benchmark::State& s) { memoryWindow(s, g_agent.pushPop); })
      ->Iterations(kRecordIterations)
      ->Repetitions(5)
      ->ReportAggregatesOnly(true);
  benchmark::RegisterBenchmark("nvtx_domain_registered/no_agent",
                               [](benchmark::State& s) { g_plain.registered(s); });
  benchmark::RegisterBenchmark("nvtx_domain_registered/agent_dormant",
                               [](benchmark::State& s) { g_agent.registered(s); });
  benchmark::RegisterBenchmark("nvtx_domain_registered/agent_recording",
                               [](benchmark::State& s) { recording(s, g_agent.registered); })
      ->Iterations(kRecordIterations)
      ->Repetitions(5)
      ->ReportAggregatesOnly(true);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const auto out = std::filesystem::temp_directory_path() /
                   ("bubblescope-nvtx-bench-" + std::to_string(getpid()));
  const pid_t child = fork();
  if (child == 0) return runBenchmarks(argc, argv, out);
  int status = 0;
  waitpid(child, &status, 0);
  // The child has exited and the agent closed its trace: report what the windows held.
  try {
    const auto run = bubblescope::traces::readRun(out);
    for (const auto& rank : run.ranks) {
      std::printf("agent trace: %zu ranges recorded, %llu dropped, %zu windows\n",
                  rank.ranges->size(), static_cast<unsigned long long>(rank.meta.droppedTotal()),
                  rank.meta.captureWindows.size());
    }
  } catch (const std::exception& e) {
    std::printf("agent trace: %s\n", e.what());
  }
  std::error_code ec;
  std::filesystem::remove_all(out, ec);
  std::filesystem::remove_all(out.string() + "-rt", ec);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
