#include "agent/nccl/nccl_real.h"

#include <dlfcn.h>
#include <link.h>

#include <string>

#include "agent/core/log.h"

namespace bubblescope::agent {
namespace {

// Base address of the agent itself: a symbol found there is our own wrapper.
const void* ownBase() {
  static const void* base = [] {
    Dl_info info = {};
    dladdr(reinterpret_cast<void*>(&findRealNccl), &info);
    return info.dli_fbase;
  }();
  return base;
}

bool isOurs(void* symbol) {
  Dl_info info = {};
  return symbol != nullptr && dladdr(symbol, &info) != 0 && info.dli_fbase == ownBase();
}

// `name`, else its pnccl twin, in the library behind `handle`.
void* lookupIn(void* handle, const char* name, const std::string& pname) {
  void* s = dlsym(handle, pname.c_str());
  if (s == nullptr || isOurs(s)) s = dlsym(handle, name);
  return isOurs(s) ? nullptr : s;
}

struct Search {
  const char* name;
  const std::string* pname;
  void* found;
};

int searchObject(dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<Search*>(data);
  if (info->dlpi_name == nullptr || info->dlpi_name[0] == '\0') return 0;  // the executable
  if (reinterpret_cast<const void*>(info->dlpi_addr) == ownBase()) return 0;
  void* h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
  if (h == nullptr) return 0;
  search->found = lookupIn(h, search->name, *search->pname);
  dlclose(h);  // NOLOAD took a reference of its own
  return search->found != nullptr ? 1 : 0;
}

}  // namespace

void* findRealNccl(const char* name) {
  void* s = dlsym(RTLD_NEXT, name);
  if (s != nullptr && !isOurs(s)) return s;
  const std::string pname = std::string("p") + name;
  s = dlsym(RTLD_DEFAULT, pname.c_str());
  if (s != nullptr && !isOurs(s)) return s;
  for (const char* soname : {"libnccl.so.2", "libnccl.so"}) {
    if (void* h = dlopen(soname, RTLD_LAZY | RTLD_NOLOAD)) {
      s = lookupIn(h, name, pname);
      dlclose(h);
      if (s != nullptr) return s;
    }
  }
  Search search{name, &pname, nullptr};
  dl_iterate_phdr(&searchObject, &search);
  return search.found;
}

void reportMissingNccl(const char* name) {
  warnOnce(Problem::NcclUnresolved,
           "%s was called but no NCCL library is loaded: it fails with ncclSystemError", name);
}

}  // namespace bubblescope::agent
