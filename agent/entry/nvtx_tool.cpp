// The NVTX tool entry point. NVTX loads the library named by NVTX_INJECTION64_PATH at the first
// NVTX call of each module (the agent sets that variable to itself when preloaded) and calls
// this, once per module.
#include "agent/nvtx/nvtx_handlers.h"
#include "agent/process/lifecycle.h"

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t getExportTable) {
  bubblescope::agent::initAgentOnce();
  if (bubblescope::agent::agentDisabled()) return 0;  // NVTX turns this module's calls into no-ops
  if (!bubblescope::agent::installNvtxHandlers(getExportTable)) return 0;
  bubblescope::agent::onHooksInstalled();  // the control socket, at the first hook
  return 1;
}
