#include "agent/cupti/cupti_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

namespace bubblescope::agent {
namespace {

// Where CUDA toolkits put CUPTI when it is not on the loader's path (conda and pip wheels put it
// beside the other CUDA libraries, which the loader finds by name).
constexpr const char* kCuptiNames[] = {"libcupti.so.13", "libcupti.so.12", "libcupti.so"};
constexpr const char* kCuptiPaths[] = {
    "/usr/local/cuda/lib64/libcupti.so",
    "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
    "/usr/local/cuda/targets/x86_64-linux/lib/libcupti.so",
    "/usr/local/cuda/targets/sbsa-linux/lib/libcupti.so",
};

void* openCupti(std::string* from, std::string* lastError) {
  auto attempt = [&](const char* path, int flags) -> void* {
    void* h = dlopen(path, flags);
    if (h != nullptr) {
      *from = path;
    } else if (const char* e = dlerror()) {
      *lastError = e;
    }
    return h;
  };
  if (const char* forced = std::getenv("BUBBLESCOPE_CUPTI_PATH"); forced != nullptr && *forced) {
    return attempt(forced, RTLD_NOW | RTLD_LOCAL);  // an explicit choice is not second-guessed
  }
  // A copy the program (PyTorch) loaded already: CUPTI must be one library per process.
  for (const char* name : kCuptiNames) {
    if (void* h = attempt(name, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD)) return h;
  }
  for (const char* name : kCuptiNames) {
    if (void* h = attempt(name, RTLD_NOW | RTLD_LOCAL)) return h;
  }
  if (const char* home = std::getenv("CUDA_HOME"); home != nullptr && *home) {
    for (const char* sub : {"/lib64/libcupti.so", "/extras/CUPTI/lib64/libcupti.so"}) {
      const std::string path = std::string(home) + sub;
      if (void* h = attempt(path.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
    }
  }
  for (const char* path : kCuptiPaths) {
    if (void* h = attempt(path, RTLD_NOW | RTLD_LOCAL)) return h;
  }
  return nullptr;
}

template <class Fn>
void resolve(void* lib, const char* name, Fn& slot) {
  slot = reinterpret_cast<Fn>(dlsym(lib, name));
}

CuptiApi* g_api = nullptr;
// Leaked, like every global of the agent: CUPTI may call back while exit() destroys statics.
std::string& whyNot() {
  static auto* s = new std::string;
  return *s;
}

void load() {
  std::string from, error;
  void* lib = openCupti(&from, &error);
  if (lib == nullptr) {
    whyNot() = "libcupti cannot be loaded" + (error.empty() ? std::string() : " (" + error + ")");
    return;
  }
  auto* api = new CuptiApi;  // never freed: CUPTI calls back into the agent until exit
  resolve(lib, "cuptiGetVersion", api->getVersion);
  resolve(lib, "cuptiGetResultString", api->getResultString);
  resolve(lib, "cuptiSubscribe", api->subscribe);
  resolve(lib, "cuptiSubscribe_v2", api->subscribeV2);
  resolve(lib, "cuptiUnsubscribe", api->unsubscribe);
  resolve(lib, "cuptiSetThreadIdType", api->setThreadIdType);
  resolve(lib, "cuptiActivityRegisterCallbacks", api->registerCallbacks);
  resolve(lib, "cuptiActivityEnable", api->enable);
  resolve(lib, "cuptiActivityDisable", api->disable);
  resolve(lib, "cuptiActivityEnableRuntimeApi", api->enableRuntimeApi);
  resolve(lib, "cuptiActivityEnableDriverApi", api->enableDriverApi);
  resolve(lib, "cuptiActivityGetNextRecord", api->getNextRecord);
  resolve(lib, "cuptiActivityGetNumDroppedRecords", api->getNumDroppedRecords);
  resolve(lib, "cuptiActivityFlushAll", api->flushAll);
  resolve(lib, "cuptiGetTimestamp", api->getTimestamp);
  resolve(lib, "cuptiActivityPushExternalCorrelationId", api->pushExternalCorrelationId);
  resolve(lib, "cuptiActivityPopExternalCorrelationId", api->popExternalCorrelationId);
  resolve(lib, "cuptiGetCallbackName", api->getCallbackName);
  resolve(lib, "cuptiGetStreamIdEx", api->getStreamIdEx);
  resolve(lib, "cuptiGetDeviceId", api->getDeviceId);
  api->path = from;
  if (api->getVersion != nullptr) api->getVersion(&api->version);
  // The activity API the agent cannot do without.
  if (api->subscribe == nullptr || api->registerCallbacks == nullptr || api->enable == nullptr ||
      api->getNextRecord == nullptr || api->flushAll == nullptr || api->getTimestamp == nullptr) {
    whyNot() = "the CUPTI at " + from + " lacks the activity API";
    delete api;
    return;
  }
  g_api = api;
}

}  // namespace

std::string CuptiApi::resultName(CUptiResult r) const {
  const char* s = nullptr;
  if (getResultString != nullptr && getResultString(r, &s) == CUPTI_SUCCESS && s != nullptr) {
    return s;
  }
  return "CUPTI error " + std::to_string(static_cast<int>(r));
}

const CuptiApi* loadCupti(std::string* why) {
  static std::once_flag once;
  std::call_once(once, load);
  if (g_api == nullptr && why != nullptr) *why = whyNot();
  return g_api;
}

}  // namespace bubblescope::agent
