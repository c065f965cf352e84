// Cost of the agent's NCCL wrapper per call (budget ≤ 200 ns on top of NCCL; docs/agent.md),
// paired in one run: the same NCCL function called through the program's own binding (the
// agent's wrapper, LD_PRELOADed and recording) and directly (the library's definition, taken
// from its handle, past the wrapper). NCCL is the fake libnccl.so.2 of the agent's tests, whose
// calls cost a few ns, so the difference is the wrapper's. The benchmark re-runs itself with the
// agent preloaded; the parent then reads the trace and reports what was recorded and dropped.
// On a shared machine compare the CPU column.
#include <dlfcn.h>
#include <nccl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include "traces/sqlite/run_reader.h"

namespace {

// Calls per repetition: the rings hold them all, so the figure is the recording path.
constexpr int64_t kIterations = 500'000;
constexpr int kRepetitions = 5;

ncclComm_t g_comm = nullptr;
decltype(&ncclAllReduce) g_directAllReduce = nullptr;
decltype(&ncclSend) g_directSend = nullptr;
const auto kStream = reinterpret_cast<cudaStream_t>(uintptr_t{0x5000});

// After each repetition the writer drains (outside the timing).
void drain(const benchmark::State&) {
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
}

void allReduceWrapped(benchmark::State& state) {
  for (auto _ : state) {
    ncclResult_t r = ncclAllReduce(nullptr, nullptr, 1024, ncclFloat32, ncclSum, g_comm, kStream);
    benchmark::DoNotOptimize(r);
  }
}

void allReduceDirect(benchmark::State& state) {
  for (auto _ : state) {
    ncclResult_t r =
        g_directAllReduce(nullptr, nullptr, 1024, ncclFloat32, ncclSum, g_comm, kStream);
    benchmark::DoNotOptimize(r);
  }
}

void sendWrapped(benchmark::State& state) {
  for (auto _ : state) {
    ncclResult_t r = ncclSend(nullptr, 256, ncclBfloat16, 2, g_comm, kStream);
    benchmark::DoNotOptimize(r);
  }
}

void sendDirect(benchmark::State& state) {
  for (auto _ : state) {
    ncclResult_t r = g_directSend(nullptr, 256, ncclBfloat16, 2, g_comm, kStream);
    benchmark::DoNotOptimize(r);
  }
}

int runBenchmarks(int argc, char** argv) {
  void* lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_NOLOAD);
  if (lib == nullptr || dlsym(RTLD_DEFAULT, "InitializeInjectionNvtx2") == nullptr) {
    std::fprintf(stderr, "nccl_wrapper_bench: the fake NCCL or the agent is not loaded\n");
    return 1;
  }
  g_directAllReduce = reinterpret_cast<decltype(g_directAllReduce)>(dlsym(lib, "ncclAllReduce"));
  g_directSend = reinterpret_cast<decltype(g_directSend)>(dlsym(lib, "ncclSend"));
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclCommInitRank(&g_comm, 4, id, 1);  // through the agent: it knows the communicator
  // Each thread's first record sets up its ring: outside the timing.
  ncclAllReduce(nullptr, nullptr, 1, ncclFloat32, ncclSum, g_comm, kStream);

  for (int pair = 0; pair < 2; ++pair) {
    const bool send = pair == 1;
    benchmark::RegisterBenchmark(send ? "nccl_send/direct" : "nccl_all_reduce/direct",
                                 send ? sendDirect : allReduceDirect)
        ->Iterations(kIterations)
        ->Repetitions(kRepetitions)
        ->ReportAggregatesOnly(true);
    benchmark::RegisterBenchmark(
        send ? "nccl_send/agent_recording" : "nccl_all_reduce/agent_recording",
        send ? sendWrapped : allReduceWrapped)
        ->Teardown(drain)
        ->Iterations(kIterations)
        ->Repetitions(kRepetitions)
        ->ReportAggregatesOnly(true);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (std::getenv("NCCL_BENCH_CHILD") != nullptr) return runBenchmarks(argc, argv);
  const auto out = std::filesystem::temp_directory_path() /
                   ("bubblescope-nccl-bench-" + std::to_string(getpid()));
  const pid_t child = fork();
  if (child == 0) {
    setenv("NCCL_BENCH_CHILD", "1", 1);
    setenv("LD_PRELOAD", AGENT_LIBRARY, 1);
    setenv("BUBBLESCOPE_OUTPUT_DIR", out.c_str(), 1);
    setenv("BUBBLESCOPE_BUFFER_KB", "262144", 1);
    setenv("BUBBLESCOPE_CUDA", "off", 1);
    unsetenv("FAKE_NCCL_NVTX");
    execv("/proc/self/exe", argv);
    std::perror("nccl_wrapper_bench: exec");
    _exit(1);
  }
  int status = 0;
  waitpid(child, &status, 0);
  try {
    for (const auto& rank : bubblescope::traces::readRun(out).ranks) {
      std::printf("agent trace: %zu NCCL calls recorded, %llu dropped\n", rank.ncclCalls->size(),
                  static_cast<unsigned long long>(rank.meta.droppedTotal()));
    }
  } catch (const std::exception& e) {
    std::printf("agent trace: %s\n", e.what());
  }
  std::error_code ec;
  std::filesystem::remove_all(out, ec);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
