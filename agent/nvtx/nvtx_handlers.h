#pragma once
// The agent as an NVTX tool: installs its handlers in one NVTX module's function tables. NVTX
// calls the tool's InitializeInjectionNvtx2 once per module (each DSO that uses NVTX has its
// own tables), so this runs once per module and only ever writes that module's slots.
// The agent's sources are compiled with NVTX_NO_IMPL: they see NVTX's types, not its code.
#include <nvtx3/nvToolsExt.h>

namespace bubblescope::agent {

// Installs the CORE and CORE2 handlers; false if the export table is unusable.
bool installNvtxHandlers(NvtxGetExportTableFunc_t getExportTable);

// For the payload extension (nvtx_payload_ext.cpp): nvtxRangePushPayload opens a range without
// a message, nvtxRangePopPayload closes one, on the same stacks as the core calls.
int pushRangeForExtension(nvtxDomainHandle_t domain);
int popRangeForExtension(nvtxDomainHandle_t domain);

}  // namespace bubblescope::agent
