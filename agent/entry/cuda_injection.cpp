// The CUDA injection entry point. With CUDA_INJECTION64_PATH naming the agent (`record` sets
// it; so does the agent itself when preloaded), the CUDA driver loads the library during cuInit
// and calls this, on the thread initialising CUDA, before any CUDA work.
#include "agent/cupti/cuda_capture.h"
#include "agent/process/lifecycle.h"

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  bubblescope::agent::initAgentOnce();
  if (!bubblescope::agent::agentDisabled()) bubblescope::agent::startCudaCapture();
  return 1;  // never fail the driver's initialisation: CUDA capture is off, the job goes on
}
