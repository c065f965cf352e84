#pragma once
// An Nsight Systems SQLite export being written, for tests: the tables `nsys export --type sqlite
// --include-json=true` makes for a CUDA + NVTX capture, with the column shapes of nsys 2026.2
// (export schema 3.25, as in shared/data/nsys), strings interned in StringIds as nsys does, and
// one row writer per kind of event. Times are on the host's session clock (NsysSession).
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "traces/model/time.h"
#include "traces/sqlite/sqlite_db.h"

namespace bubblescope::tracegen {

// One host's capture: the wall clock and the monotonic clock (which event times use) when it
// began, when it stopped, and what was profiled.
struct NsysSession {
  TimeNs utcEpochNs = 0;
  TimeNs systemClockNs = 0;
  TimeNs stopNs = 0;  // on the monotonic clock
  std::string hostname;
  std::vector<std::string> command;  // the profiled command and its arguments
};

// nsys's serialized ids: the VM id above bit 48, then the pid, then the tid.
int64_t globalPid(int pid);
int64_t globalTid(int pid, int tid);

struct KernelRow {
  TimeNs start = 0, end = 0;
  int pid = 0, device = 0;
  int64_t stream = 0;
  uint32_t correlation = 0;
  std::string_view name, shortName;  // demangled with templates, and the base name
  int gridX = 1, blockX = 128, registers = 32;
  int64_t sharedMemory = 0;
};

class NsysExport {
 public:
  NsysExport(const std::filesystem::path& file, const NsysSession& session);

  void process(int pid, std::string_view name);  // with its main thread (tid = pid)
  void thread(int pid, int tid, std::string_view name);
  void gpu(int device, std::string_view name, std::string_view uuid, uint64_t totalMemory);
  // A cudaMalloc (allocation) or cudaFree of device memory, as --cuda-memory-usage=true records.
  void memoryUsage(TimeNs at, int pid, int device, uint64_t address, uint64_t bytes,
                   bool allocation);
  void stream(int pid, int device, int64_t stream, bool nonBlocking);
  void kernel(const KernelRow& k);
  // A CUDA runtime call ("cudaLaunchKernel_v7000") or driver call ("cuLaunchKernelEx").
  void api(TimeNs start, TimeNs end, int pid, int tid, uint32_t correlation, std::string_view name,
           bool driver);
  // The device side of a cudaStreamSynchronize: the stream drained from start to end.
  void streamSync(TimeNs start, TimeNs end, int pid, int device, int64_t stream,
                  uint32_t correlation);
  void domain(TimeNs at, int pid, int tid, int domainId, std::string_view name);
  // A push/pop range with plain text (nvtxRangePushA: torch.cuda.nvtx, emit_nvtx).
  void range(TimeNs start, TimeNs end, int pid, int tid, std::string_view text);
  // A start/end range (nvtxRangeStartA .. nvtxRangeEnd, torch.cuda.nvtx.range_start): it may
  // overlap others, unlike push/pop ranges.
  void startEndRange(TimeNs start, TimeNs end, int pid, int tid, std::string_view text,
                     int64_t rangeId);
  // A push/pop range with a registered name and a payload, as NCCL writes its API calls.
  void registeredRange(TimeNs start, TimeNs end, int pid, int tid, int domainId,
                       std::string_view name, std::string_view json);

  // Commits the rows: the file is a complete export from here on.
  void finish();

 private:
  static bool createTables(traces::sqlite::Database& db);  // before the statements are prepared
  int64_t string(std::string_view s);
  void meta(const NsysSession& session);

  traces::sqlite::Database db_;
  bool tables_;
  std::unordered_map<std::string, int64_t> strings_;
  int64_t gridId_ = 1;
  traces::sqlite::Statement stringRow_, kernelRow_, apiRow_, syncRow_, textRange_, registeredRange_,
      bareRange_;
};

}  // namespace bubblescope::tracegen
