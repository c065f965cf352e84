#pragma once
// The agent's capture-control mark ("start", "stop") in the "bubblescope" NVTX domain, as a test
// program emits it.
#include <nvtx3/nvToolsExt.h>

inline void controlMark(const char* message) {
  static nvtxDomainHandle_t control = nvtxDomainCreateA("bubblescope");
  nvtxEventAttributes_t a = {};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = message;
  nvtxDomainMarkEx(control, &a);
}
