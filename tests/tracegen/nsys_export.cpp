#include "tests/tracegen/nsys_export.h"

#include <cstdio>

namespace bubblescope::tracegen {
namespace {

constexpr int64_t kVm = int64_t{1} << 48;  // VM id 1, as in every export we have seen
constexpr int kNvtxPushPop = 59, kNvtxStartEnd = 60, kNvtxDomainCreate = 75;

// NCCL's static payload schemas as the exports in shared/data/nsys hold them, row for row (domain
// 1 is NCCL's in every process there and here); nsys writes them once per process. The first
// entry's offset is NULL there: 0, where the struct begins.
constexpr const char* kNcclSchemas = R"(
INSERT INTO NVTX_PAYLOAD_SCHEMAS VALUES (1, 16777218, NULL, 1, NULL, 4, 24, NULL),
  (1, 16777230, NULL, 1, NULL, 1, 8, NULL), (1, 16777223, NULL, 1, NULL, 3, 24, NULL),
  (1, 16777220, NULL, 1, NULL, 2, 16, NULL), (1, 16777226, NULL, 1, NULL, 3, 24, NULL),
  (1, 16777225, NULL, 1, NULL, 3, 24, NULL), (1, 16777222, NULL, 1, NULL, 3, 24, NULL),
  (1, 16777227, NULL, 1, NULL, 4, 24, NULL);
INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES
  (1, 16777218, 0, NULL, 18, 'NCCL communicator ID', NULL, NULL, NULL),
  (1, 16777218, 1, NULL, 5, 'No. of ranks', NULL, NULL, 8),
  (1, 16777218, 2, NULL, 5, 'Rank', NULL, NULL, 12),
  (1, 16777218, 3, NULL, 5, 'CUDA device', NULL, NULL, 16),
  (1, 16777230, 0, NULL, 18, 'NCCL communicator ID', NULL, NULL, NULL),
  (1, 16777223, 0, NULL, 18, 'NCCL communicator ID', NULL, NULL, NULL),
  (1, 16777223, 1, NULL, 22, 'Message size [bytes]', NULL, NULL, 8),
  (1, 16777223, 2, NULL, 16777232, 'Reduction operation', NULL, NULL, 16),
  (1, 16777220, 0, NULL, 18, 'NCCL communicator ID', NULL, NULL, NULL),
  (1, 16777220, 1, NULL, 22, 'Message size [bytes]', NULL, NULL, 8),
  (1, 16777226, 0, NULL, 18, 'NCCL communicator ID', NULL, NULL, NULL),
  (1, 16777226, 1, NULL, 22, 'Message size [bytes]', NULL, NULL, 8),
  (1, 16777226, 2, NULL, 5, 'Peer rank', NULL, NULL, 16),
  (1, 16777225, 0, NULL, 18, 'NCCL communicator ID', NULL, NULL, NULL),
  (1, 16777225, 1, NULL, 22, 'Message size [bytes]', NULL, NULL, 8),
  (1, 16777225, 2, NULL, 5, 'Peer rank', NULL, NULL, 16),
  (1, 16777222, 0, NULL, 18, 'NCCL communicator ID', NULL, NULL, NULL),
  (1, 16777222, 1, NULL, 22, 'Message size [bytes]', NULL, NULL, 8),
  (1, 16777222, 2, NULL, 5, 'Root', NULL, NULL, 16),
  (1, 16777227, 0, NULL, 18, 'NCCL communicator ID', NULL, NULL, NULL),
  (1, 16777227, 1, NULL, 5, 'No. of ranks', NULL, NULL, 8),
  (1, 16777227, 2, NULL, 5, 'Rank', NULL, NULL, 12),
  (1, 16777227, 3, NULL, 5, 'CUDA device', NULL, NULL, 16);
)";

// Bytes of an entry type (nvToolsExtPayload.h's NVTX_PAYLOAD_ENTRY_TYPE_*, LP64); an id past
// them is a registered enum, which C stores as an int.
size_t entrySize(uint64_t type) {
  switch (type) {
    case 1:
    case 2:
    case 11:
    case 12:
      return 1;  // char, uchar, int8, uint8
    case 3:
    case 4:
    case 13:
    case 14:
      return 2;  // short, ushort, int16, uint16
    case 5:
    case 6:
    case 15:
    case 16:
      return 4;  // int, uint, int32, uint32
    default:
      return type >= 256 ? 4 : 8;  // long, long long, (u)int64, size, address
  }
}

std::string json(const NvtxPayload& p) {
  std::string s = "{";
  for (const auto& [name, value] : p.fields) {
    s += (s.size() > 1 ? ", \"" : "\"") + name + "\": " + std::to_string(value);
  }
  return s + "}";
}

// The tables, with nsys 2026.2's columns in its order (nsys creates no indexes).
constexpr const char* kSchema = R"(
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,
  launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL,
  gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL,
  blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,
  staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,
  localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL,
  gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER, graphNodeId INTEGER,
  sharedMemoryLimitConfig INTEGER, qmdBulkReleaseDone INTEGER, qmdPreexitDone INTEGER,
  qmdLastCtaDone INTEGER, graphId INTEGER, clusterX INTEGER, clusterY INTEGER,
  clusterZ INTEGER, clusterSchedulingPolicy INTEGER, maxPotentialClusterSize INTEGER,
  maxActiveClusters INTEGER, sharedMemoryRequestedPercentage INTEGER,
  tensorSizeMinusOneElements TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER,
  nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  deprecatedSyncType INTEGER, syncType INTEGER NOT NULL, eventId INTEGER NOT NULL,
  eventSyncId INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
  rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
  endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, uint64Value INTEGER,
  int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, int32Value INTEGER,
  floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData TEXT);
CREATE TABLE NVTX_PAYLOAD_SCHEMAS (domainId INTEGER, schemaId INTEGER, name TEXT, type INTEGER,
  flags INTEGER, numEntries INTEGER, payloadSize INTEGER, alignTo INTEGER);
CREATE TABLE NVTX_PAYLOAD_SCHEMA_ENTRIES (domainId INTEGER NOT NULL, schemaId INTEGER NOT NULL,
  idx INTEGER NOT NULL, flags INTEGER, type INTEGER, name TEXT, description TEXT,
  arrayOrUnionDetail INTEGER, offset INTEGER);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT,
  busLocation TEXT, isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER,
  memoryBandwidth INTEGER, clockRate INTEGER, smCount INTEGER, uuid TEXT, chipName TEXT,
  cuDevice INTEGER, computeMajor INTEGER, computeMinor INTEGER);
CREATE TABLE TARGET_INFO_CUDA_STREAM (streamId INTEGER NOT NULL, hwId INTEGER NOT NULL,
  vmId INTEGER NOT NULL, processId INTEGER NOT NULL, contextId INTEGER NOT NULL,
  priority INTEGER NOT NULL, flag INTEGER NOT NULL);
CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT,
  systemClockNs INTEGER);
CREATE TABLE TARGET_INFO_SYSTEM_ENV (globalVid INTEGER, devStateName TEXT NOT NULL,
  name TEXT NOT NULL, nameEnum INTEGER NOT NULL, value TEXT NOT NULL);
CREATE TABLE ANALYSIS_DETAILS (globalVid INTEGER NOT NULL, duration INTEGER NOT NULL,
  startTime INTEGER NOT NULL, stopTime INTEGER NOT NULL);
CREATE TABLE META_DATA_CAPTURE (name TEXT NOT NULL, value TEXT);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
CREATE TABLE ENUM_NSYS_EVENT_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE ENUM_NSYS_EVENT_CLASS (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE ENUM_CUPTI_SYNC_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS (start INTEGER NOT NULL, globalPid INTEGER,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, address INTEGER NOT NULL,
  pc INTEGER NOT NULL, bytes INTEGER NOT NULL, memKind INTEGER NOT NULL,
  memoryOperationType INTEGER NOT NULL, name TEXT, correlationId INTEGER, streamId INTEGER,
  localMemoryPoolAddress INTEGER, localMemoryPoolReleaseThreshold INTEGER,
  localMemoryPoolSize INTEGER, localMemoryPoolUtilizedSize INTEGER,
  importedMemoryPoolAddress INTEGER, importedMemoryPoolProcessId INTEGER);
CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE ENUM_CUDA_DEV_MEM_EVENT_OPER (id INTEGER NOT NULL PRIMARY KEY, name TEXT,
  label TEXT);
INSERT INTO ENUM_CUDA_MEM_KIND VALUES (0, 'CUDA_MEMOPR_MEMORY_KIND_PAGEABLE', 'Pageable'),
  (1, 'CUDA_MEMOPR_MEMORY_KIND_PINNED', 'Pinned'), (2, 'CUDA_MEMOPR_MEMORY_KIND_DEVICE', 'Device'),
  (3, 'CUDA_MEMOPR_MEMORY_KIND_ARRAY', 'Array'), (4, 'CUDA_MEMOPR_MEMORY_KIND_MANAGED', 'Managed'),
  (5, 'CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC', 'Device Static'),
  (6, 'CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC', 'Managed Static'),
  (7, 'CUDA_MEMOPR_MEMORY_KIND_UNKNOWN', 'Unknown');
INSERT INTO ENUM_CUDA_DEV_MEM_EVENT_OPER VALUES
  (0, 'CUDA_DEV_MEM_EVENT_OPR_ALLOCATION', 'Allocation'),
  (1, 'CUDA_DEV_MEM_EVENT_OPR_DEALLOCATION', 'Deallocation');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES (33, 'NvtxCategory', 'NvtxCategory'),
  (34, 'NvtxMark', 'NvtxMark'), (59, 'NvtxPushPopRange', 'NvtxPushPopRange'),
  (60, 'NvtxStartEndRange', 'NvtxStartEndRange'), (70, 'NvtxtPushPopRange', 'NvtxtPushPopRange'),
  (71, 'NvtxtStartEndRange', 'NvtxtStartEndRange'), (75, 'NvtxDomainCreate', 'NvtxDomainCreate');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES (0, 'TRACE_PROCESS_EVENT_CUDA_RUNTIME', 'CUDA runtime'),
  (1, 'TRACE_PROCESS_EVENT_CUDA_DRIVER', 'CUDA driver');
INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES (0, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN', 'Unknown'),
  (1, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE', 'Event sync'),
  (2, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT', 'Stream wait sync'),
  (3, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE', 'Stream sync'),
  (4, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE', 'Context sync');
)";

}  // namespace

bool NsysExport::createTables(traces::sqlite::Database& db) {
  // One transaction for the whole file: a commit per table or row would sync the disk each time.
  db.exec("BEGIN");
  db.exec(kSchema);
  return true;
}

int64_t globalPid(int pid) {
  return kVm | (int64_t{pid} << 24);
}

int64_t globalTid(int pid, int tid) {
  return globalPid(pid) | tid;
}

std::string payloadBlob(const NvtxPayload& payload, const std::vector<NvtxSchemaEntry>& entries,
                        size_t payloadSize) {
  std::string bytes(16 + payloadSize, '\0');
  auto put = [&](size_t at, uint64_t v, size_t n) {
    for (size_t i = 0; i < n && at + i < bytes.size(); ++i)
      bytes[at + i] = static_cast<char>(v >> (8 * i));
  };
  put(0, payload.schemaId, 8);
  put(8, payloadSize, 8);
  size_t next = 0;  // where the previous entry ended
  for (const NvtxSchemaEntry& e : entries) {
    const size_t n = entrySize(e.type);
    const size_t at = e.offset >= 0 ? static_cast<size_t>(e.offset) : (next + n - 1) / n * n;
    next = at + n;
    for (const auto& [name, value] : payload.fields) {
      if (name == e.name) put(16 + at, value, n);
    }
  }
  return bytes;
}

NsysExport::NsysExport(const std::filesystem::path& file, const NsysSession& session,
                       NsysPayloads payloads)
    : db_(file, traces::sqlite::Database::Mode::CreateNew),
      tables_(createTables(db_)),
      payloads_(payloads),
      stringRow_(db_.prepare("INSERT INTO StringIds VALUES (?, ?)")),
      kernelRow_(db_.prepare(
          "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?1, ?2, ?3, ?3 + 1, NULL, ?4, ?5, ?6, "
          "?7, ?8, NULL, 1, 0, ?9, ?10, 1, 1, ?11, 1, 1, 0, ?12, 0, 0, ?13, ?12, NULL, 0, NULL, "
          "NULL, NULL, NULL, 0, 0, 0, 0, 0, 0, NULL, '[]')")),
      apiRow_(db_.prepare(
          "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, ?, ?, ?, ?, 0, NULL)")),
      syncRow_(db_.prepare("INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (?1, ?2, ?3, "
                           "?3 + 1, NULL, ?4, ?5, ?6, NULL, 3, 4294967295, 0)")),
      textRange_(db_.prepare("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, "
                             "domainId) VALUES (?, ?, ?, ?, ?, ?)")),
      registeredRange_(
          db_.prepare("INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, textId, "
                      "domainId, jsonText) VALUES (?, ?, ?, ?, ?, ?, ?)")),
      bareRange_(db_.prepare("INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, textId, "
                             "domainId) VALUES (?, ?, ?, ?, ?, ?)")),
      blobRange_(db_.prepare("INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, textId, "
                             "domainId, binaryData) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
  meta(session);
}

int64_t NsysExport::string(std::string_view s) {
  auto [it, added] = strings_.try_emplace(std::string(s), 0);
  if (added) {
    it->second = static_cast<int64_t>(strings_.size());
    stringRow_.bind(1, it->second);
    stringRow_.bind(2, s);
    stringRow_.run();
  }
  return it->second;
}

void NsysExport::meta(const NsysSession& s) {
  auto st = db_.prepare("INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (?, '', '', ?)");
  st.bind(1, s.utcEpochNs);
  st.bind(2, s.systemClockNs);
  st.run();
  st = db_.prepare("INSERT INTO ANALYSIS_DETAILS VALUES (?, ?, ?, ?)");
  st.bind(1, kVm);
  st.bind(2, s.stopNs - s.systemClockNs);
  st.bind(3, s.systemClockNs);
  st.bind(4, s.stopNs);
  st.run();
  st = db_.prepare("INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES (?, 'Local (CLI)', ?, ?, ?)");
  const std::pair<std::string, std::string> env[] = {
      {"Hostname", s.hostname}, {"NvDriverVersion", "580.95.05"}, {"CudaDriverVersion", "13000"}};
  int nameEnum = 619;
  for (const auto& [name, value] : env) {
    st.bind(1, kVm);
    st.bind(2, name);
    st.bind(3, nameEnum++);
    st.bind(4, value);
    st.run();
  }
  st = db_.prepare("INSERT INTO META_DATA_CAPTURE VALUES (?, ?)");
  auto pair = [&](const std::string& name, const std::string& value) {
    st.bind(1, name);
    st.bind(2, value);
    st.run();
  };
  pair("CAPTURE_EVENT_TYPE", "NvtxEvents");
  pair("CAPTURE_EVENT_TYPE", "Cuda");
  pair("CUDA_TRACE_SCOPE", "ProcessTree");
  for (size_t i = 0; i < s.command.size(); ++i) {
    pair(i == 0 ? "PROCESS_0:COMMAND" : "PROCESS_0:ARGUMENT_" + std::to_string(i - 1),
         s.command[i]);
  }
  st = db_.prepare("INSERT INTO META_DATA_EXPORT VALUES (?, ?)");
  pair("EXPORT_PRODUCT_NAME", "NVIDIA Nsight Systems");
  pair("EXPORT_PRODUCT_VERSION", "2026.2.1.210");
  pair("EXPORT_SCHEMA_VERSION", "3.25.0");
  pair("EXPORT_PARAM_EXPORT_TYPE", "SQLite");
  pair("EXPORT_PARAM_INCLUDE_JSON", payloads_ == NsysPayloads::Json ? "true" : "false");
  pair("EXPORT_PARAM_INCLUDE_BLOBS", payloads_ == NsysPayloads::Blobs ? "true" : "false");
}

void NsysExport::process(int pid, std::string_view name) {
  auto st = db_.prepare("INSERT INTO PROCESSES VALUES (?, ?, ?)");
  st.bind(1, globalPid(pid));
  st.bind(2, pid);
  st.bind(3, name);
  st.run();
  db_.exec(kNcclSchemas);
  st = db_.prepare("INSERT INTO ThreadNames VALUES (?, 20, ?)");
  st.bind(1, string(name));
  st.bind(2, globalTid(pid, pid));
  st.run();
}

void NsysExport::thread(int pid, int tid, std::string_view name) {
  auto st = db_.prepare("INSERT INTO ThreadNames VALUES (?, 10, ?)");
  st.bind(1, string(name));
  st.bind(2, globalTid(pid, tid));
  st.run();
}

void NsysExport::gpu(int device, std::string_view name, std::string_view uuid,
                     uint64_t totalMemory) {
  auto st = db_.prepare(
      "INSERT INTO TARGET_INFO_GPU VALUES (1, ?, ?, ?, 1, 52428800, ?, 3352320000000, "
      "1980000000, 132, ?, 'GH100', ?, 9, 0)");
  st.bind(1, device);
  st.bind(2, name);
  char bus[16];
  std::snprintf(bus, sizeof bus, "0000:%02X:00.0", 0x18 + 0x11 * device);
  st.bind(3, bus);
  st.bind(4, static_cast<int64_t>(totalMemory));
  st.bind(5, uuid);
  st.bind(6, device);
  st.run();
}

void NsysExport::memoryUsage(TimeNs at, int pid, int device, uint64_t address, uint64_t bytes,
                             bool allocation) {
  constexpr int kDevice = 2, kAllocation = 0, kDeallocation = 1;  // the ENUM tables above
  auto st = db_.prepare(
      "INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS(start, globalPid, deviceId, contextId, address, "
      "pc, bytes, memKind, memoryOperationType, correlationId, streamId) "
      "VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, 0, 0)");
  st.bind(1, at);
  st.bind(2, globalPid(pid));
  st.bind(3, device);
  st.bind(4, device + 1);
  st.bind(5, static_cast<int64_t>(address));
  st.bind(6, static_cast<int64_t>(bytes));
  st.bind(7, kDevice);
  st.bind(8, allocation ? kAllocation : kDeallocation);
  st.run();
}

void NsysExport::stream(int pid, int device, int64_t stream, bool nonBlocking) {
  auto st = db_.prepare("INSERT INTO TARGET_INFO_CUDA_STREAM VALUES (?, 0, 1, ?, ?, 0, ?)");
  st.bind(1, stream);
  st.bind(2, pid);
  st.bind(3, device + 1);
  st.bind(4, nonBlocking ? 2 : 1);
  st.run();
}

void NsysExport::kernel(const KernelRow& k) {
  const int64_t name = string(k.name), shortName = string(k.shortName);
  auto& st = kernelRow_;
  st.bind(1, k.start);
  st.bind(2, k.end);
  st.bind(3, k.device);
  st.bind(4, k.stream);
  st.bind(5, k.correlation);
  st.bind(6, globalPid(k.pid));
  st.bind(7, name);
  st.bind(8, shortName);
  st.bind(9, k.registers);
  st.bind(10, k.gridX);
  st.bind(11, k.blockX);
  st.bind(12, k.sharedMemory);
  st.bind(13, gridId_++);
  st.run();
}

void NsysExport::api(TimeNs start, TimeNs end, int pid, int tid, uint32_t correlation,
                     std::string_view name, bool driver) {
  const int64_t nameId = string(name);
  apiRow_.bind(1, start);
  apiRow_.bind(2, end);
  apiRow_.bind(3, driver ? 1 : 0);
  apiRow_.bind(4, globalTid(pid, tid));
  apiRow_.bind(5, correlation);
  apiRow_.bind(6, nameId);
  apiRow_.run();
}

void NsysExport::streamSync(TimeNs start, TimeNs end, int pid, int device, int64_t stream,
                            uint32_t correlation) {
  syncRow_.bind(1, start);
  syncRow_.bind(2, end);
  syncRow_.bind(3, device);
  syncRow_.bind(4, stream);
  syncRow_.bind(5, correlation);
  syncRow_.bind(6, globalPid(pid));
  syncRow_.run();
}

void NsysExport::domain(TimeNs at, int pid, int tid, int domainId, std::string_view name) {
  auto st = db_.prepare(
      "INSERT INTO NVTX_EVENTS (start, eventType, text, globalTid, domainId) VALUES "
      "(?, ?, ?, ?, ?)");
  st.bind(1, at);
  st.bind(2, kNvtxDomainCreate);
  st.bind(3, name);
  st.bind(4, globalTid(pid, tid));
  st.bind(5, domainId);
  st.run();
}

void NsysExport::range(TimeNs start, TimeNs end, int pid, int tid, std::string_view text) {
  textRange_.bind(1, start);
  textRange_.bind(2, end);
  textRange_.bind(3, kNvtxPushPop);
  textRange_.bind(4, text);
  textRange_.bind(5, globalTid(pid, tid));
  textRange_.bind(6, 0);
  textRange_.run();
}

void NsysExport::startEndRange(TimeNs start, TimeNs end, int pid, int tid, std::string_view text,
                               int64_t rangeId) {
  auto st = db_.prepare(
      "INSERT INTO NVTX_EVENTS (start, end, eventType, rangeId, text, globalTid, domainId) "
      "VALUES (?, ?, ?, ?, ?, ?, 0)");
  st.bind(1, start);
  st.bind(2, end);
  st.bind(3, kNvtxStartEnd);
  st.bind(4, rangeId);
  st.bind(5, text);
  st.bind(6, globalTid(pid, tid));
  st.run();
}

const std::string& NsysExport::blob(int domainId, const NvtxPayload& payload) {
  const std::pair<int, uint64_t> key{domainId, payload.schemaId};
  auto it = schemas_.find(key);
  if (it == schemas_.end()) {
    // The schema as this file's rows give it (the first process's: they are alike).
    Schema sc;
    auto size = db_.prepare(
        "SELECT payloadSize FROM NVTX_PAYLOAD_SCHEMAS WHERE domainId = ? AND schemaId = ?");
    size.bind(1, domainId);
    size.bind(2, static_cast<int64_t>(payload.schemaId));
    if (size.step()) sc.payloadSize = static_cast<size_t>(size.int64(0));
    auto rows = db_.prepare(
        "SELECT type, name, coalesce(offset, -1), idx FROM NVTX_PAYLOAD_SCHEMA_ENTRIES WHERE "
        "domainId = ? AND schemaId = ? GROUP BY idx ORDER BY idx");
    rows.bind(1, domainId);
    rows.bind(2, static_cast<int64_t>(payload.schemaId));
    while (rows.step()) {
      sc.entries.push_back(
          {static_cast<uint64_t>(rows.int64(0)), std::string(rows.text(1)), rows.int64(2)});
    }
    it = schemas_.emplace(key, std::move(sc)).first;
  }
  blob_ = payloadBlob(payload, it->second.entries, it->second.payloadSize);
  return blob_;
}

void NsysExport::registeredRange(TimeNs start, TimeNs end, int pid, int tid, int domainId,
                                 std::string_view name, const NvtxPayload& payload) {
  const int64_t textId = string(name);
  // A payload-less range (ncclGroupStart), or a payload the export drops, has NULL for both.
  const bool none = payload.schemaId == 0 || payloads_ == NsysPayloads::None;
  auto& st = none ? bareRange_ : payloads_ == NsysPayloads::Json ? registeredRange_ : blobRange_;
  st.bind(1, start);
  st.bind(2, end);
  st.bind(3, kNvtxPushPop);
  st.bind(4, globalTid(pid, tid));
  st.bind(5, textId);
  st.bind(6, domainId);
  if (!none && payloads_ == NsysPayloads::Json) st.bind(7, json(payload));
  if (!none && payloads_ == NsysPayloads::Blobs) st.bindBlob(7, blob(domainId, payload));
  st.run();
}

void NsysExport::finish() {
  db_.exec("COMMIT");
}

}  // namespace bubblescope::tracegen
