// The measured loops, built twice as two shared libraries. NVTX keeps its state per module, so
// in one process one copy can run without a tool and the other under the agent: the same code,
// compared in one run.
#include <benchmark/benchmark.h>
#include <nvtx3/nvToolsExt.h>

#include "tests/agent/control_mark.h"

extern "C" {

__attribute__((visibility("default"))) void benchWarmUp() {
  nvtxMarkA("warm up");
}

// A capture-control mark in the "bubblescope" domain ("start", "stop").
__attribute__((visibility("default"))) void benchControl(const char* message) {
  controlMark(message);
}

// One range outside any timing: the thread's first recorded event sets up its ring.
__attribute__((visibility("default"))) void benchOneRange() {
  nvtxRangePushA("warm up");
  nvtxRangePop();
}

// What PyTorch's range_push and the engine do: an ASCII push and a pop.
__attribute__((visibility("default"))) void benchPushPop(benchmark::State& state) {
  for (auto _ : state) {
    nvtxRangePushA("F mb=3");
    nvtxRangePop();
  }
}

// What NCCL and nvtx3.hpp users do: a domain push with a registered string.
__attribute__((visibility("default"))) void benchDomainPushPopRegistered(benchmark::State& state) {
  static nvtxDomainHandle_t domain = nvtxDomainCreateA("bench");
  static nvtxStringHandle_t name = nvtxDomainRegisterStringA(domain, "SEND F mb=3 to=2");
  nvtxEventAttributes_t a = {};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  a.message.registered = name;
  for (auto _ : state) {
    nvtxDomainRangePushEx(domain, &a);
    nvtxDomainRangePop(domain);
  }
}

}  // extern "C"
