#pragma once
// An Nsight Systems SQLite export being written, for tests: the tables `nsys export --type sqlite`
// makes for a CUDA + NVTX capture, with the column shapes of nsys 2026.2 (export schema 3.25, as
// in shared/data/nsys), strings interned in StringIds as nsys does, and one row writer per kind of
// event. NCCL's payloads come in the three shapes nsys exports (NsysPayloads). Times are on the
// host's session clock (NsysSession).
#include <cstdint>
#include <filesystem>
#include <map>
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

// What the export keeps of NVTX's extended payloads: `--include-json=true` renders each as JSON
// (jsonText), `--include-blobs=true` keeps its bytes (binaryData) beside the schemas that lay them
// out (NVTX_PAYLOAD_SCHEMAS, NVTX_PAYLOAD_SCHEMA_ENTRIES), nsys's default neither.
enum class NsysPayloads { Json, Blobs, None };

// One payload of a static schema as NCCL fills it: the value of each of the schema's entries, by
// the entry's name, in the schema's order.
struct NvtxPayload {
  uint64_t schemaId = 0;  // 0: the range has no payload (ncclGroupStart)
  std::vector<std::pair<std::string, uint64_t>> fields;  // as the bits a field holds
};

// NCCL's static schema ids (NVTX_PAYLOAD_ENTRY_TYPE_SCHEMA_ID_STATIC_START + NVTX_SID_*), whose
// rows every export with NCCL ranges holds, as shared/data/nsys's do.
inline constexpr uint64_t kNcclCommInitSchema = 16777218, kNcclAllReduceSchema = 16777223,
                          kNcclSendSchema = 16777225, kNcclRecvSchema = 16777226;

// The binaryData of a payload: its schema id and size (8 bytes each, little-endian), then its
// bytes, each field at the offset its schema entry gives (or self-aligned after the previous one
// where the entry gives none, as NVTX lays out a C struct). `entries` are the schema's rows:
// (type, name, offset or -1).
struct NvtxSchemaEntry {
  uint64_t type = 0;
  std::string name;
  int64_t offset = -1;
};
std::string payloadBlob(const NvtxPayload& payload, const std::vector<NvtxSchemaEntry>& entries,
                        size_t payloadSize);

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
  NsysExport(const std::filesystem::path& file, const NsysSession& session,
             NsysPayloads payloads = NsysPayloads::Json);

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
  // A push/pop range with a registered name and a payload, as NCCL writes its API calls; the
  // payload as the export's shape keeps it.
  void registeredRange(TimeNs start, TimeNs end, int pid, int tid, int domainId,
                       std::string_view name, const NvtxPayload& payload);

  // Commits the rows: the file is a complete export from here on.
  void finish();

 private:
  static bool createTables(traces::sqlite::Database& db);  // before the statements are prepared
  int64_t string(std::string_view s);
  void meta(const NsysSession& session);
  // binaryData of a payload, laid out by the schema's rows in this file.
  const std::string& blob(int domainId, const NvtxPayload& payload);
  struct Schema {
    size_t payloadSize = 0;
    std::vector<NvtxSchemaEntry> entries;
  };

  traces::sqlite::Database db_;
  bool tables_;
  NsysPayloads payloads_;
  std::map<std::pair<int, uint64_t>, Schema> schemas_;  // (domain, schema id), read back
  std::string blob_;
  std::unordered_map<std::string, int64_t> strings_;
  int64_t gridId_ = 1;
  traces::sqlite::Statement stringRow_, kernelRow_, apiRow_, syncRow_, textRange_, registeredRange_,
      bareRange_, blobRange_;
};

}  // namespace bubblescope::tracegen
