// A CUDA program as the agent sees one, without a GPU: the agent is preloaded, this program
// calls its InitializeInjection as the CUDA driver does during cuInit, and "launches" kernels
// through the fake libcupti (fake_cupti.cpp) the agent loaded. A capture window is opened and
// closed with the agent's NVTX control marks; or, with `watch`, a memory window is asked for over
// the process's own control socket and its snapshot read back. Prints, at each stage, whether
// CUPTI traces kernels now, for the test to compare with the window.
#include <dlfcn.h>
#include <nvtx3/nvToolsExt.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <optional>
#include <string>
#include <thread>

#include "agent/control/client.h"
#include "tests/agent/control_mark.h"
#include "traces/sqlite/sqlite_db.h"
#include "traces/sqlite/trace_reader.h"

namespace {

uint64_t realtimeNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

namespace control = bubblescope::control;
namespace traces = bubblescope::traces;

std::optional<control::Target> self() {
  std::vector<std::string> problems;
  return control::findAgent(getpid(), control::dirEnvironmentFromProcess(), geteuid(), &problems);
}

bool ask(const control::Target& agent, const std::string& line) {
  return control::exchangeAll({agent}, {line + "\n"}, std::chrono::seconds(5))[0].reply.ok;
}

// Kernels named `name` in the memory window's trace, as a watcher reads it.
size_t kernelsInSnapshot(const control::Target& agent, const char* name, std::string* reason) {
  control::Reply reply;
  std::string error;
  const auto image = control::fetchSnapshot(agent, control::kSnapshotClientTimeout, &reply, &error);
  if (!image) {
    *reason = error;
    return 0;
  }
  traces::sqlite::Database db = traces::sqlite::Database::fromBytes(*image);
  const traces::RankTrace t = traces::readRankTrace(db, "snapshot");
  *reason = t.meta.captureWindows.empty() ? "" : t.meta.captureWindows[0].reason;
  size_t n = 0;
  for (traces::StringId id : t.kernels->name) n += t.strings.at(id) == name ? 1 : 0;
  return n;
}

template <class Kernel, class Traced>
int watch(Kernel kernel, Traced traced) {
  nvtxRangePushA("warm up");  // the control socket starts with the first NVTX call
  nvtxRangePop();
  const auto agent = self();
  if (!agent) {
    std::fprintf(stderr, "cupti_test_app: no control socket\n");
    return 5;
  }
  std::printf("watch ok=%d\n", ask(*agent, "watch keep=5") ? 1 : 0);
  std::printf("watching traced=%d\n", traced());
  for (int i = 0; i < 3; ++i) kernel("in_memory");
  // CUPTI hands completed records over when the writer flushes it (every 500 ms).
  size_t seen = 0;
  std::string reason;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (seen < 3 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    seen = kernelsInSnapshot(*agent, "in_memory", &reason);
  }
  std::printf("snapshot kernels=%zu window=%s\n", seen, reason.c_str());
  std::printf("stop ok=%d\n", ask(*agent, "stop") ? 1 : 0);
  const auto off = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (traced() != 0 && std::chrono::steady_clock::now() < off) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::printf("after traced=%d\n", traced());
  kernel("after_window");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && !(argc == 3 && std::string(argv[2]) == "watch")) {
    std::fprintf(stderr, "usage: cupti_test_app FAKE_CUPTI_LIBRARY [watch]\n");
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

  if (argc == 3) return watch(kernel, traced);

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
