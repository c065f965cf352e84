#pragma once
// The agent as a tool of NVTX's payload extension (nvToolsExtPayload.h). Each module using the
// extension loads the library named by NVTX_INJECTION64_PATH once more and calls
// InitializeInjectionNvtxExtension (agent/entry/). Without it the extension's calls are no-ops, so
// NCCL's nvtxRangePopPayload (how ncclCommInitRank closes its range) would never pop. Handled:
// schema and enum registration (ids only: the agent knows NCCL's layouts), push/pop with a
// payload; NCCL's domain goes to the NCCL route (agent/nccl/nccl_nvtx.h).
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtPayload.h>

namespace bubblescope::agent {

// Installs the handlers in the module's slots; false for other extensions (counters, memory:
// their calls stay no-ops) or a module without slots.
bool installPayloadHandlers(nvtxExtModuleInfo_t* module);

}  // namespace bubblescope::agent
