// A minimal NVTX tool for tests (loaded through NVTX_INJECTION64_PATH): records every range push/
// pop and thread name of the process and writes them, at exit, to
// $BUBBLESCOPE_TEST_NVTX_DIR/<pid>.tsv. It shows what any NVTX profiler would receive.
#include <nvtx3/nvToolsExt.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct Open {
  std::string name;
  int64_t startNs;
};

struct Closed {
  std::string name;
  int tid;
  int64_t startNs, endNs;
};

std::mutex mutex;
std::vector<Closed> closed;
std::vector<std::pair<uint32_t, std::string>> threadNames;
thread_local std::vector<Open> stack;

int64_t now() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

int pushA(const char* name) {
  stack.push_back({name, now()});
  return static_cast<int>(stack.size()) - 1;
}

int pop() {
  if (stack.empty()) return -1;
  Closed c{std::move(stack.back().name), static_cast<int>(gettid()), stack.back().startNs, now()};
  stack.pop_back();
  std::lock_guard lock(mutex);
  closed.push_back(std::move(c));
  return static_cast<int>(stack.size());
}

void nameOsThreadA(uint32_t tid, const char* name) {
  std::lock_guard lock(mutex);
  threadNames.emplace_back(tid, name);
}

void writeAtExit() {
  const char* dir = std::getenv("BUBBLESCOPE_TEST_NVTX_DIR");
  if (!dir) return;
  std::ofstream out(std::string(dir) + "/" + std::to_string(getpid()) + ".tsv");
  std::lock_guard lock(mutex);
  for (const auto& [tid, name] : threadNames) out << "thread\t" << tid << "\t" << name << "\n";
  for (const Closed& c : closed) {
    out << "range\t" << c.tid << "\t" << c.startNs << "\t" << c.endNs << "\t" << c.name << "\n";
  }
}

void hook(NvtxFunctionTable table, unsigned int size, unsigned int id, NvtxFunctionPointer fn) {
  if (id < size && table[id]) *table[id] = fn;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t getExportTable) {
  auto* callbacks =
      static_cast<const NvtxExportTableCallbacks*>(getExportTable(NVTX_ETID_CALLBACKS));
  if (!callbacks) return 0;
  NvtxFunctionTable table = nullptr;
  unsigned int size = 0;
  if (!callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &table, &size)) return 0;
  hook(table, size, NVTX_CBID_CORE_RangePushA, reinterpret_cast<NvtxFunctionPointer>(&pushA));
  hook(table, size, NVTX_CBID_CORE_RangePop, reinterpret_cast<NvtxFunctionPointer>(&pop));
  hook(table, size, NVTX_CBID_CORE_NameOsThreadA,
       reinterpret_cast<NvtxFunctionPointer>(&nameOsThreadA));
  std::atexit(writeAtExit);
  return 1;
}
