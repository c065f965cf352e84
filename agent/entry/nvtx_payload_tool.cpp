// The NVTX payload extension's entry point: each module using the extension calls it once
// (agent/nvtx/nvtx_payload_ext.h).
#include "agent/nvtx/nvtx_payload_ext.h"
#include "agent/process/lifecycle.h"

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtxExtension(
    nvtxExtModuleInfo_t* module) {
  bubblescope::agent::initAgentOnce();
  if (bubblescope::agent::agentDisabled()) return 0;
  return bubblescope::agent::installPayloadHandlers(module) ? 1 : 0;
}
