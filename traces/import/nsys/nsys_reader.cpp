#include <algorithm>
#include <map>
#include <optional>

#include "traces/errors.h"
#include "traces/format/field_range.h"
#include "traces/import/nsys/nsys_import.h"
#include "traces/import/nsys/nsys_reader.h"
#include "traces/sqlite/integer_columns.h"

namespace bubblescope::traces::import {
namespace {

using sqlite::integerOrNull;
using sqlite::requireIntegers;

constexpr const char* kKernel = "CUPTI_ACTIVITY_KIND_KERNEL";
constexpr const char* kMemcpy = "CUPTI_ACTIVITY_KIND_MEMCPY";
constexpr const char* kMemset = "CUPTI_ACTIVITY_KIND_MEMSET";
constexpr const char* kSync = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
constexpr const char* kRuntime = "CUPTI_ACTIVITY_KIND_RUNTIME";
constexpr int64_t kPidBits = 0xFFFFFF;

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel": the names our agent records.
std::string_view apiName(std::string_view s) {
  const size_t v = s.rfind("_v");
  if (v != std::string_view::npos && v + 2 < s.size() &&
      std::all_of(s.begin() + static_cast<long>(v) + 2, s.end(),
                  [](char c) { return c >= '0' && c <= '9'; })) {
    return s.substr(0, v);
  }
  return s;
}

MemcpyKind memcpyKind(int64_t v) {
  // ENUM_CUDA_MEMCPY_OPER follows CUpti_ActivityMemcpyKind up to 10 (PtoP); the unified-memory
  // kinds after it have no counterpart in the model.
  return v >= 0 && v <= 10 ? static_cast<MemcpyKind>(v) : MemcpyKind::Unknown;
}

}  // namespace

NsysReader::NsysReader(const std::filesystem::path& file)
    : file_(file), db_(file, sqlite::Database::Mode::ReadOnly), schema_(db_) {}

NsysReader::NsysReader(sqlite::Database&& db, const std::filesystem::path& file)
    : file_(file), db_(std::move(db)), schema_(db_) {}

NsysReader::Rank* NsysReader::rankOf(int64_t key) {
  auto it = rankOfKey_.find(key);
  return it == rankOfKey_.end() ? nullptr : &ranks_[it->second];
}

StringId NsysReader::name(Rank& r, const sqlite::Statement& st, int idCol, int textCol) {
  if (!st.isNull(idCol)) {
    const int64_t id = st.int64(idCol);
    auto [it, added] = r.names.try_emplace(id, 0);
    if (added) it->second = r.builder.intern(st.text(textCol));
    return it->second;
  }
  return r.builder.intern(st.text(textCol));
}

// Processes with GPU work, each a rank: ordered by device, then pid.
void NsysReader::findProcesses() {
  struct Found {
    int64_t key;
    uint32_t device;
  };
  std::map<int64_t, uint32_t> devices;
  for (const char* table : {kKernel, kMemcpy, kMemset}) {
    if (!schema_.has(table)) continue;
    const std::string key = schema_.has(table, "globalPid") ? "globalPid >> 24" : "0";
    auto st = db_.prepare("SELECT " + key + " AS p, min(deviceId) FROM " + table + " GROUP BY p");
    while (st.step()) {
      const int64_t k = st.int64(0);
      const auto d = fieldInRange<uint32_t>(file_, std::string(table) + ".deviceId", st.int64(1));
      auto [it, added] = devices.try_emplace(k, d);
      if (!added) it->second = std::min(it->second, d);
    }
  }
  if (devices.empty()) {
    throw TraceError(file_,
                     "an Nsight Systems export without GPU activity (no kernels, memcpys or "
                     "memsets): record with 'nsys profile --trace=cuda,nvtx' and export again");
  }
  std::vector<Found> found;
  for (auto [k, d] : devices) found.push_back({k, d});
  std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
    return a.device != b.device ? a.device < b.device : (a.key & kPidBits) < (b.key & kPidBits);
  });
  ranks_.resize(found.size());
  for (size_t i = 0; i < found.size(); ++i) {
    Rank& r = ranks_[i];
    r.key = found[i].key;
    r.device = found[i].device;
    rankOfKey_[r.key] = i;
    RankMeta& m = r.builder.meta();
    m.source = "nsys";
    m.agentVersion.clear();
    m.pid = r.key & kPidBits;
    m.cudaCapture = true;
    m.extra["nsys.device"] = std::to_string(r.device);
    m.extra["nsys.global_pid"] = std::to_string(r.key << 24);
  }
  // MPI ranks, when nsys recorded them (--trace=mpi).
  if (schema_.has("MPI_RANKS", "globalTid") && schema_.has("MPI_RANKS", "rank")) {
    auto st = db_.prepare("SELECT globalTid, rank FROM MPI_RANKS");
    while (st.step()) {
      requireIntegers(st, file_, "MPI_RANKS");
      if (Rank* r = rankOf(st.int64(0) >> 24)) {
        r->builder.meta().rank =
            fieldInRange<int>(file_, "MPI_RANKS.rank", st.int64(1), 0, INT32_MAX);
      }
    }
  }
}

void NsysReader::readKernels() {
  if (!schema_.has(kKernel)) return;
  const std::string nameCol =
      schema_.firstOf(kKernel, {"demangledName", "shortName", "mangledName", "name"});
  const std::string id = nameCol.empty() ? "NULL" : nameCol;
  const std::string key = schema_.column(kKernel, "globalPid", "0");
  auto st = db_.prepare(
      "SELECT start, end, deviceId, streamId, " + schema_.column(kKernel, "correlationId", "0") +
      ", " + key + ", " + "CASE typeof(" + id + ") WHEN 'integer' THEN " + id + " END, " +
      (nameCol.empty() ? std::string("''") : schema_.text(nameCol)) + " FROM " + kKernel);
  while (st.step()) {
    requireIntegers(st, file_, kKernel, 0, 6);
    Rank* r = rankOf(st.int64(5) >> 24);
    if (!r) continue;
    const auto device =
        fieldInRange<uint32_t>(file_, "CUPTI_ACTIVITY_KIND_KERNEL.deviceId", st.int64(2));
    const auto stream = fieldInRange<uint64_t>(file_, "CUPTI_ACTIVITY_KIND_KERNEL.streamId",
                                               st.int64(3), 0, INT64_MAX);
    r->builder.addKernel(
        st.int64(0), st.int64(1), r->builder.stream(device, stream), name(*r, st, 6, 7),
        fieldInRange<uint32_t>(file_, "CUPTI_ACTIVITY_KIND_KERNEL.correlationId", st.int64(4)));
    note(st.int64(1));
  }
}

void NsysReader::readCopies() {
  for (const char* table : {kMemcpy, kMemset}) {
    if (!schema_.has(table)) continue;
    const bool memcpy = table == kMemcpy;
    const std::string key = schema_.column(table, "globalPid", "0");
    auto st = db_.prepare(
        "SELECT start, end, deviceId, streamId, " + schema_.column(table, "correlationId", "0") +
        ", " + key + ", " + schema_.column(table, "bytes", "0") + ", " +
        (memcpy ? schema_.column(table, "copyKind", "0") : "0") + " FROM " + table);
    const std::string field = std::string(table) + ".";
    while (st.step()) {
      requireIntegers(st, file_, table);
      Rank* r = rankOf(st.int64(5) >> 24);
      if (!r) continue;
      const StreamIndex s = r->builder.stream(
          fieldInRange<uint32_t>(file_, field + "deviceId", st.int64(2)),
          fieldInRange<uint64_t>(file_, field + "streamId", st.int64(3), 0, INT64_MAX));
      const auto corr = fieldInRange<uint32_t>(file_, field + "correlationId", st.int64(4));
      const auto bytes = fieldInRange<uint64_t>(file_, field + "bytes", st.int64(6), 0, INT64_MAX);
      if (memcpy) {
        r->builder.addMemcpy(st.int64(0), st.int64(1), s, corr, bytes, memcpyKind(st.int64(7)));
      } else {
        r->builder.addMemset(st.int64(0), st.int64(1), s, corr, bytes);
      }
      note(st.int64(1));
    }
  }
}

// nsys gives some synchronisations the device of the event waited on, not of the stream: a
// stream the process already ran work on keeps its own device.
StreamIndex NsysReader::syncStream(Rank& r, int64_t device, int64_t stream) {
  const auto& streams = r.builder.trace().streams;
  StreamIndex sameId = kNoStream;
  for (StreamIndex i = 0; i < streams.size(); ++i) {
    if (streams[i].streamId != static_cast<uint64_t>(stream)) continue;
    if (streams[i].device == static_cast<uint64_t>(device)) return i;
    sameId = i;
  }
  if (sameId != kNoStream) return sameId;
  return r.builder.stream(r.device, static_cast<uint64_t>(stream));
}

void NsysReader::readSyncs() {
  if (!schema_.has(kSync) || !schema_.has(kSync, "globalPid")) return;
  const std::string type = schema_.firstOf(kSync, {"syncType", "deprecatedSyncType"});
  auto st = db_.prepare("SELECT start, end, deviceId, streamId, " +
                        schema_.column(kSync, "correlationId", "0") + ", globalPid, " +
                        (type.empty() ? std::string("0") : "coalesce(" + type + ", 0)") +
                        " AS syncType FROM " + kSync);
  while (st.step()) {
    requireIntegers(st, file_, kSync, 0, 2);
    requireIntegers(st, file_, kSync, 4, 7);
    // The device is only a hint (syncStream), the stream may be missing: NULL is allowed.
    const int64_t device = integerOrNull(st, 2, file_, kSync).value_or(-1);
    const std::optional<int64_t> stream = integerOrNull(st, 3, file_, kSync);
    Rank* r = rankOf(st.int64(5) >> 24);
    if (!r) continue;
    const int64_t kind = st.int64(6);
    // Context-wide synchronisation has no stream (CUPTI writes UINT32_MAX, nsys NULL or -1).
    const bool none = !stream || *stream < 0 || *stream == UINT32_MAX || kind == 4;
    r->builder.addSync(st.int64(0), st.int64(1), none ? kNoStream : syncStream(*r, device, *stream),
                       fieldInRange<uint32_t>(
                           file_, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION.correlationId", st.int64(4)),
                       kind >= 0 && kind <= 4 ? static_cast<SyncKind>(kind) : SyncKind::Unknown);
  }
}

void NsysReader::readRuntime() {
  if (!schema_.has(kRuntime) || !schema_.has(kRuntime, "globalTid")) return;
  const std::string nameCol = schema_.firstOf(kRuntime, {"nameId", "name"});
  const std::string id = nameCol.empty() ? "NULL" : nameCol;
  auto st = db_.prepare(
      "SELECT start, end, globalTid, " + schema_.column(kRuntime, "correlationId", "0") +
      ", CASE typeof(" + id + ") WHEN 'integer' THEN " + id + " END, " +
      (nameCol.empty() ? std::string("''") : schema_.text(nameCol)) + " FROM " + kRuntime);
  std::vector<std::unordered_map<int64_t, StringId>> apiNames(ranks_.size());
  while (st.step()) {
    requireIntegers(st, file_, kRuntime, 0, 4);
    const int64_t gtid = st.int64(2);
    Rank* r = rankOf(gtid >> 24);
    if (!r) continue;
    StringId n;
    auto& cache = apiNames[static_cast<size_t>(r - ranks_.data())];
    if (!st.isNull(4)) {
      auto [it, added] = cache.try_emplace(st.int64(4), 0);
      if (added) it->second = r->builder.intern(apiName(st.text(5)));
      n = it->second;
    } else {
      n = r->builder.intern(apiName(st.text(5)));
    }
    r->builder.addApiCall(
        st.int64(0), st.int64(1), r->builder.thread(static_cast<uint64_t>(gtid & kPidBits)), n,
        fieldInRange<uint32_t>(file_, "CUPTI_ACTIVITY_KIND_RUNTIME.correlationId", st.int64(3)));
    note(st.int64(1));
  }
}

void NsysReader::readThreadNames() {
  if (!schema_.has("ThreadNames", "globalTid") || !schema_.has("ThreadNames", "nameId")) return;
  auto st = db_.prepare("SELECT globalTid, " + schema_.text("nameId") +
                        " FROM ThreadNames ORDER BY priority");
  while (st.step()) {
    requireIntegers(st, file_, "ThreadNames", 0, 1);
    const int64_t gtid = st.int64(0);
    if (Rank* r = rankOf(gtid >> 24)) {
      r->builder.nameThread(static_cast<uint64_t>(gtid & kPidBits), st.text(1));
    }
  }
}

void NsysReader::readDevices() {
  struct Gpu {
    std::string name, uuid;
    int64_t memory = 0;
  };
  std::map<int64_t, Gpu> gpus;
  if (schema_.has("TARGET_INFO_GPU", "id")) {
    auto st = db_.prepare("SELECT id, " + schema_.column("TARGET_INFO_GPU", "name", "''") + ", " +
                          schema_.column("TARGET_INFO_GPU", "uuid", "''") + ", " +
                          schema_.column("TARGET_INFO_GPU", "totalMemory", "0") +
                          " FROM TARGET_INFO_GPU");
    while (st.step()) {
      requireIntegers(st, file_, "TARGET_INFO_GPU", 0, 1);
      gpus[st.int64(0)] = {std::string(st.text(1)), std::string(st.text(2)),
                           integerOrNull(st, 3, file_, "TARGET_INFO_GPU").value_or(0)};
    }
  }
  for (Rank& r : ranks_) {
    for (const Stream& s : r.builder.trace().streams) {
      if (r.builder.hasDevice(s.device)) continue;
      auto it = gpus.find(s.device);
      r.builder.addDevice(s.device, it == gpus.end() ? "" : it->second.name,
                          it == gpus.end() ? "" : it->second.uuid);
    }
    // The capacity of every device the rank used (streams, or memory alone: readMemory).
    for (const Device& d : std::vector<Device>(r.builder.trace().devices)) {
      auto it = gpus.find(d.id);
      if (it == gpus.end()) continue;
      if (d.name == 0) r.builder.addDevice(d.id, it->second.name, it->second.uuid);
      if (it->second.memory > 0) {
        r.builder.setDeviceMemory(d.id, static_cast<uint64_t>(it->second.memory));
      }
    }
  }
}

// Session time -> epoch: utcEpochNs is the wall clock when the session began, which is
// systemClockNs (or ANALYSIS_DETAILS.startTime) on the timeline the events use.
TimeNs NsysReader::epochOffset() {
  const char* t = "TARGET_INFO_SESSION_START_TIME";
  if (!schema_.has(t, "utcEpochNs")) return 0;
  auto st = db_.prepare("SELECT utcEpochNs, " + schema_.column(t, "systemClockNs") + " FROM " + t);
  if (!st.step()) return 0;
  const std::optional<int64_t> utc = integerOrNull(st, 0, file_, t);
  if (!utc) return 0;
  std::optional<TimeNs> sessionStart = integerOrNull(st, 1, file_, t);
  std::string sessionField = std::string(t) + ".systemClockNs";
  if (!sessionStart && schema_.has("ANALYSIS_DETAILS", "startTime")) {
    auto a = db_.prepare("SELECT startTime FROM ANALYSIS_DETAILS");
    if (a.step()) sessionStart = integerOrNull(a, 0, file_, "ANALYSIS_DETAILS");
    sessionField = "ANALYSIS_DETAILS.startTime";
  }
  // Clock readings are not negative; two that are not cannot wrap their difference.
  fieldInRange<int64_t>(file_, std::string(t) + ".utcEpochNs", *utc, 0, INT64_MAX);
  fieldInRange<int64_t>(file_, sessionField, sessionStart.value_or(0), 0, INT64_MAX);
  return *utc - sessionStart.value_or(0);
}

void NsysReader::fillMeta(TimeNs offset) {
  const auto exportMeta = schema_.pairs("META_DATA_EXPORT", "name", "value");
  const auto capture = schema_.pairs("META_DATA_CAPTURE", "name", "value");
  const auto env = schema_.pairs("TARGET_INFO_SYSTEM_ENV", "name", "value");
  std::string command;
  if (auto it = capture.find("PROCESS_0:COMMAND"); it != capture.end()) command = it->second;
  for (int i = 0;; ++i) {
    auto it = capture.find("PROCESS_0:ARGUMENT_" + std::to_string(i));
    if (it == capture.end()) break;
    command += " " + it->second;
  }
  for (Rank& r : ranks_) {
    RankMeta& m = r.builder.meta();
    m.command = command;
    if (auto it = env.find("Hostname"); it != env.end()) m.host = it->second;
    if (auto it = exportMeta.find("EXPORT_SCHEMA_VERSION"); it != exportMeta.end()) {
      m.extra["nsys.schema_version"] = it->second;
    }
    if (auto it = exportMeta.find("EXPORT_PRODUCT_VERSION"); it != exportMeta.end()) {
      m.extra["nsys.product_version"] = it->second;
    }
    if (offset == 0) m.extra["nsys.time_base"] = "session (no TARGET_INFO_SESSION_START_TIME)";
  }
}

ImportedFile NsysReader::read() {
  out_.file = file_;
  out_.format = "nsys";
  findProcesses();
  readThreadNames();
  readKernels();
  readCopies();
  readSyncs();
  readRuntime();
  readNvtx();
  readMemory();
  readDevices();
  const TimeNs offset = epochOffset();
  fillMeta(offset);
  for (Rank& r : ranks_) {
    linkNcclKernels(r);
    RankTrace t = r.builder.finish(offset);
    t.file = file_;
    t.meta.startNs = traceSpan(t).start;
    out_.ranks.push_back(std::move(t));
  }
  return std::move(out_);
}

namespace {

// The one way SQLite's errors leave the importer: a TraceError naming the file.
template <class Read>
ImportedFile translatingErrors(const std::filesystem::path& file, Read read) {
  try {
    return read();
  } catch (const sqlite::SqliteError& e) {
    if (e.code() == SQLITE_CORRUPT || e.code() == SQLITE_NOTADB) {
      throw TraceError(file, std::string("truncated or corrupt (SQLite: ") + e.what() + ")");
    }
    throw TraceError(
        file, std::string("cannot be read as an Nsight Systems export (SQLite: ") + e.what() + ")");
  }
}

}  // namespace

ImportedFile importNsysFile(const std::filesystem::path& file) {
  return translatingErrors(file, [&] { return NsysReader(file).read(); });
}

ImportedFile importNsysDatabase(sqlite::Database&& db, const std::filesystem::path& file) {
  return translatingErrors(file, [&] { return NsysReader(std::move(db), file).read(); });
}

}  // namespace bubblescope::traces::import
