// A second NVTX module (as libtorch or libnccl are to a training script): NVTX keeps separate
// state per DSO and initialises the tool once for each.
#include <nvtx3/nvToolsExt.h>

#include <string>

extern "C" __attribute__((visibility("default"))) void moduleRanges(int n) {
  nvtxDomainHandle_t nccl = nvtxDomainCreateA("NCCL");
  for (int i = 0; i < n; ++i) {
    nvtxRangePushA(("module " + std::to_string(i)).c_str());
    nvtxEventAttributes_t a = {};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "ncclSend";
    nvtxDomainRangePushEx(nccl, &a);
    nvtxDomainRangePop(nccl);
    nvtxRangePop();
  }
}
