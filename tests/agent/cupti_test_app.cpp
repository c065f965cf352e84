// A CUDA program as the agent sees one, without a GPU: the agent is preloaded, this program
// calls its InitializeInjection as the CUDA driver does during cuInit, and "launches" kernels
// through the fake libcupti (fake_cupti.cpp) the agent loaded. A capture window is opened and
// closed with the agent's NVTX control marks. Prints, at each stage, whether CUPTI traces
// kernels now, for the test to compare with the window.
#include <dlfcn.h>
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <thread>

#include "tests/agent/control_mark.h"

namespace {

uint64_t realtimeNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: cupti_test_app FAKE_CUPTI_LIBRARY\n");
    return 2;
  }
  auto initializeInjection =
      reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "InitializeInjection"));
  if (initializeInjection == nullptr) {
    std::fprintf(stderr, "cupti_test_app: the agent is not preloaded\n");
    return 3;
  }
  initializeInjection();
  void* cupti = dlopen(argv[1], RTLD_NOW | RTLD_NOLOAD);
  if (cupti == nullptr) {
    std::fprintf(stderr, "cupti_test_app: the agent did not load %s\n", argv[1]);
    return 4;
  }
  auto launch =
      reinterpret_cast<int (*)(const char*, uint64_t, uint64_t)>(dlsym(cupti, "fakeCuptiLaunch"));
  auto traced = reinterpret_cast<int (*)()>(dlsym(cupti, "fakeCuptiKernelsTraced"));
  auto kernel = [&](const char* name) {
    const uint64_t t = realtimeNs();
    launch(name, t, t + 1000);
  };

  std::printf("start traced=%d\n", traced());
  kernel("before_window");

  controlMark("start");
  std::printf("window traced=%d\n", traced());
  nvtxRangePushA("step 1");
  for (int i = 0; i < 3; ++i) kernel("in_window");
  nvtxRangePop();
  controlMark("stop");

  // The writer flushes what CUPTI holds of the window, then turns kernel tracing off.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (traced() != 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::printf("after traced=%d\n", traced());
  kernel("after_window");
  return 0;
}
