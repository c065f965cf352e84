#include "traces/sqlite/trace_reader.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <fstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "traces/errors.h"
#include "traces/files/input_path.h"
#include "traces/format/field_range.h"
#include "traces/format/schema.h"
#include "traces/model/sort.h"
#include "traces/sqlite/group_correlations.h"
#include "traces/sqlite/integer_columns.h"
#include "traces/sqlite/sqlite_db.h"

namespace bubblescope::traces {
namespace {

using sqlite::Database;
using sqlite::requireIntegers;
using sqlite::SqliteError;
using sqlite::Statement;
namespace fs = std::filesystem;

uint32_t bigEndian(const unsigned char* p, int bytes) {
  uint32_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
  return v;
}

// Checks what can be told from the file itself before SQLite opens it: exists, is SQLite, and is
// as long as its header says (a copy cut short or a disk that filled up).
void checkFile(const fs::path& file) {
  checkInputFile(file);
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (size == 0) throw TraceError(file, "empty file, not a trace");

  unsigned char header[100] = {};
  std::ifstream in(file, std::ios::binary);
  if (!in) throw TraceError(file, "cannot be opened for reading");
  in.read(reinterpret_cast<char*>(header), sizeof header);
  static constexpr char kMagic[] = "SQLite format 3";  // with its NUL: 16 bytes
  if (in.gcount() < 100 || !std::equal(kMagic, kMagic + 16, header)) {
    throw TraceError(file, "not a SQLite database, so not a bubblescope trace");
  }
  uint32_t pageSize = bigEndian(header + 16, 2);
  if (pageSize == 1) pageSize = 65536;
  const uint32_t pages = bigEndian(header + 28, 4);
  // The in-header page count is valid only when its version stamp matches the change counter;
  // with a WAL beside the file the newest pages live in the WAL.
  const bool countValid = bigEndian(header + 92, 4) == bigEndian(header + 24, 4);
  const bool hasWal = fs::exists(fs::path(file.string() + "-wal"), ec);
  const uint64_t expected = uint64_t{pageSize} * pages;
  if (countValid && !hasWal && pages > 0 && size < expected) {
    throw TraceError(
        file, "truncated: " + std::to_string(size) + " of " + std::to_string(expected) + " bytes");
  }
}

[[noreturn]] void failSqlite(const fs::path& file, const SqliteError& e) {
  if (e.code() == SQLITE_CORRUPT || e.code() == SQLITE_NOTADB) {
    throw TraceError(file, std::string("truncated or corrupt (SQLite: ") + e.what() + ")");
  }
  throw TraceError(file, std::string("cannot be read (SQLite: ") + e.what() + ")");
}

int64_t parseInt(const fs::path& file, const std::string& key, const std::string& value) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || ptr != value.data() + value.size()) {
    throw TraceError(file, "metadata '" + key + "' is not a number: '" + value + "'");
  }
  return v;
}

// A WAL-mode database (file header bytes 18 and 19 are 2) keeps what was written since its last
// checkpoint in its -wal file: without it, a trace copied alone looks empty.
bool walModeWithoutItsWal(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  char header[20] = {};
  if (!in.read(header, sizeof header)) return false;
  std::error_code ec;
  return header[18] == 2 && header[19] == 2 && !fs::exists(file.string() + "-wal", ec);
}

RankMeta loadMeta(Database& db, const fs::path& file) {
  if (!db.hasTable("meta")) {
    if (walModeWithoutItsWal(file)) {
      throw TraceError(file, "holds no trace yet: what its writer wrote is in its write-ahead log " +
                                 file.filename().string() +
                                 "-wal, which is missing (copy the -wal file with the trace)");
    }
    throw TraceError(file, "a SQLite database but not a bubblescope trace (no meta table)");
  }
  std::unordered_map<std::string, std::string> kv;
  {
    auto st = db.prepare("SELECT key, value FROM meta");
    while (st.step()) kv.emplace(std::string(st.text(0)), std::string(st.text(1)));
  }
  if (kv["format"] != kFormatName) {
    throw TraceError(
        file, "a SQLite database but not a bubblescope trace (format '" + kv["format"] + "')");
  }
  RankMeta meta;
  const int64_t schema = parseInt(file, "schema_version", kv["schema_version"]);
  if (schema > kSchemaVersion) {
    throw TraceError(file, "written with trace schema " + std::to_string(schema) +
                               ", newer than this bubblescope reads (" +
                               std::to_string(kSchemaVersion) + "): upgrade bubblescope");
  }
  if (schema < 1) throw TraceError(file, "invalid trace schema version " + std::to_string(schema));
  meta.schemaVersion = static_cast<int>(schema);
  auto number = [&](const char* key, int64_t fallback) {
    auto it = kv.find(key);
    return it == kv.end() || it->second.empty() ? fallback : parseInt(file, key, it->second);
  };
  // -1: not known (an import that could not tell).
  auto rankLike = [&](const char* key, int64_t lo) {
    const int64_t v = number(key, -1);
    return v == -1 ? -1 : fieldInRange<int>(file, std::string("meta.") + key, v, lo, INT32_MAX);
  };
  meta.source = kv["source"];
  meta.runId = kv["run_id"];
  meta.rank = rankLike("rank", 0);
  meta.localRank = rankLike("local_rank", 0);
  meta.worldSize = rankLike("world_size", 1);
  if (meta.rank >= 0 && meta.worldSize > 0 && meta.rank >= meta.worldSize) {
    throw TraceError(
        file, "meta.rank = " + std::to_string(meta.rank) +
                  " is out of range for meta.world_size = " + std::to_string(meta.worldSize));
  }
  meta.host = kv["host"];
  meta.pid = fieldInRange<int32_t>(file, "meta.pid", number("pid", 0), 0, INT32_MAX);
  meta.command = kv["command"];
  meta.agentVersion = kv["agent_version"];
  meta.startNs = number("start_ns", 0);
  meta.aliveNs = number("alive_ns", 0);
  meta.cudaCapture = number("cuda_capture", 0) != 0;
  meta.cudaNote = kv["cuda_note"];
  static constexpr std::string_view kExtra = "extra.";
  for (const auto& [key, value] : kv) {
    if (key.starts_with(kExtra)) meta.extra[key.substr(kExtra.size())] = value;
  }

  auto anchors = db.prepare("SELECT realtime_ns, monotonic_ns, cupti_ns FROM clock_anchors");
  while (anchors.step()) {
    requireIntegers(anchors, file, "clock_anchors");
    meta.clockAnchors.push_back({anchors.int64(0), anchors.int64(1), anchors.int64(2)});
  }
  auto windows = db.prepare("SELECT start_ns, end_ns, reason FROM capture_windows ORDER BY id");
  while (windows.step()) {
    requireIntegers(windows, file, "capture_windows", 0, 2);
    meta.captureWindows.push_back(
        {windows.int64(0), windows.int64(1), std::string(windows.text(2))});
  }
  auto dropped = db.prepare("SELECT source, count FROM dropped_events");
  while (dropped.step()) {
    requireIntegers(dropped, file, "dropped_events", 1, 2);
    meta.dropped[std::string(dropped.text(0))] =
        fieldInRange<uint64_t>(file, "dropped_events.count", dropped.int64(1), 0, INT64_MAX);
  }
  return meta;
}

// Maps the file's ids (strings, OS thread ids, CUDA streams) to the model's indexes.
class IdMaps {
 public:
  IdMaps(RankTrace& trace, const fs::path& file) : trace_(trace), file_(file) {}

  void addString(int64_t fileId, std::string_view value) {
    if (fileId < 0 || fileId > (int64_t{1} << 31)) {
      throw TraceError(file_, "corrupt: string id " + std::to_string(fileId) + " out of range");
    }
    if (static_cast<size_t>(fileId) >= strings_.size()) strings_.resize(fileId + 1, kMissing);
    strings_[fileId] = trace_.strings.intern(value);
  }

  StringId string(int64_t fileId) const {
    if (fileId < 0 || static_cast<size_t>(fileId) >= strings_.size() ||
        strings_[fileId] == kMissing) {
      throw TraceError(file_, "corrupt: refers to string id " + std::to_string(fileId) +
                                  ", which the strings table lacks");
    }
    return strings_[fileId];
  }

  ThreadIndex thread(int64_t tid) {
    const auto key = static_cast<uint64_t>(tid);
    if (key == lastTid_ && haveLastTid_) return lastThread_;
    auto [it, added] = threads_.try_emplace(key, static_cast<ThreadIndex>(trace_.threads.size()));
    if (added) trace_.threads.push_back(Thread{key, 0});
    lastTid_ = key;
    lastThread_ = it->second;
    haveLastTid_ = true;
    return it->second;
  }

  StreamIndex stream(int64_t device, int64_t stream) {
    const auto key =
        std::pair{fieldInRange<uint32_t>(file_, "device", device), static_cast<uint64_t>(stream)};
    if (key == lastStreamKey_ && haveLastStream_) return lastStream_;
    auto [it, added] = streams_.try_emplace(key, static_cast<StreamIndex>(trace_.streams.size()));
    if (added) trace_.streams.push_back(Stream{key.first, key.second, 0});
    lastStreamKey_ = key;
    lastStream_ = it->second;
    haveLastStream_ = true;
    return it->second;
  }

 private:
  struct PairHash {
    size_t operator()(const std::pair<uint32_t, uint64_t>& p) const {
      return std::hash<uint64_t>{}(p.second * 1000003u ^ p.first);
    }
  };
  static constexpr StringId kMissing = UINT32_MAX;

  RankTrace& trace_;
  const fs::path& file_;
  std::vector<StringId> strings_;
  std::unordered_map<uint64_t, ThreadIndex> threads_;
  std::unordered_map<std::pair<uint32_t, uint64_t>, StreamIndex, PairHash> streams_;
  // Consecutive rows mostly share a thread or stream: skip the hash lookup for a repeat.
  uint64_t lastTid_ = 0;
  ThreadIndex lastThread_ = 0;
  bool haveLastTid_ = false;
  std::pair<uint32_t, uint64_t> lastStreamKey_;
  StreamIndex lastStream_ = 0;
  bool haveLastStream_ = false;
};

template <class Table>
void resizeAll(Table& t, size_t n) {
  t.forEachColumn([n](auto& column) { column.resize(n); });
}

// How many rows to size the columns for: the largest rowid, but never more rows than the file has
// bytes for (a forged rowid must not make us allocate terabytes; the loop below grows if needed).
size_t rowCount(Database& db, const char* table) {
  auto st = db.prepare(std::string("SELECT max(rowid) FROM ") + table);
  const int64_t maxRowid = st.step() ? st.int64(0) : 0;
  auto pages = db.prepare("SELECT page_count * page_size FROM pragma_page_count, pragma_page_size");
  const int64_t bytes = pages.step() ? pages.int64(0) : 0;
  return static_cast<size_t>(std::clamp<int64_t>(maxRowid, 0, bytes / 8));
}

// Reads every row of `sql` into `table`: columns are sized once from the row count and filled by
// index, which is markedly faster than growing them row by row.
template <class Table, class Fill>
void loadTable(Database& db, const fs::path& file, const char* name, const std::string& columns,
               Table& table, Fill fill) {
  size_t n = rowCount(db, name);
  resizeAll(table, n);
  auto st = db.prepare("SELECT " + columns + " FROM " + name);
  size_t i = 0;
  while (st.step()) {
    if (i == n)
      resizeAll(table, n = n * 2 + 16);  // rowids were not dense; cannot happen in
                                         // files we write, but be safe
    requireIntegers(st, file, name);
    fill(st, i++);
  }
  resizeAll(table, i);
}

void loadEvents(Database& db, RankTrace& t, IdMaps& ids, const fs::path& file) {
  {
    auto st = db.prepare("SELECT id, value FROM strings");
    while (st.step()) {
      requireIntegers(st, file, "strings", 0, 1);
      ids.addString(st.int64(0), st.text(1));
    }
  }
  {
    auto st = db.prepare("SELECT tid, name_id FROM threads");
    while (st.step()) {
      requireIntegers(st, file, "threads");
      t.threads[ids.thread(st.int64(0))].name = ids.string(st.int64(1));
    }
  }
  {
    // Schema 3 added the device's total memory; older files leave it unknown (0).
    const bool memoryColumn = t.meta.schemaVersion >= 3;
    auto st = db.prepare(memoryColumn ? "SELECT id, name_id, uuid, memory_bytes FROM devices"
                                      : "SELECT id, name_id, uuid FROM devices");
    while (st.step()) {
      requireIntegers(st, file, "devices", 0, 2);
      if (memoryColumn) requireIntegers(st, file, "devices", 3, 4);
      t.devices.push_back(Device{fieldInRange<uint32_t>(file, "devices.id", st.int64(0)),
                                 ids.string(st.int64(1)), std::string(st.text(2)),
                                 memoryColumn ? fieldInRange<uint64_t>(file, "devices.memory_bytes",
                                                                       st.int64(3), 0, INT64_MAX)
                                              : 0});
    }
  }
  {
    auto st = db.prepare("SELECT device, stream, name_id FROM streams");
    while (st.step()) {
      requireIntegers(st, file, "streams");
      t.streams[ids.stream(st.int64(0), st.int64(1))].name = ids.string(st.int64(2));
    }
  }
  auto& r = *t.ranges;
  loadTable(db, file, "nvtx_ranges", "start, end, tid, domain_id, name_id, depth, kind", r,
            [&](Statement& st, size_t i) {
              r.start[i] = st.int64(0);
              r.end[i] = st.int64(1);
              r.thread[i] = ids.thread(st.int64(2));
              r.domain[i] = ids.string(st.int64(3));
              r.name[i] = ids.string(st.int64(4));
              r.depth[i] = fieldInRange<uint16_t>(file, "nvtx_ranges.depth", st.int64(5));
              r.kind[i] = enumInRange(file, "nvtx_ranges.kind", st.int64(6), RangeKind::StartEnd);
            });
  if (db.hasTable("open_ranges")) {  // schema 2 on
    auto& o = *t.openRanges;
    loadTable(db, file, "open_ranges", "start, tid, domain_id, name_id, depth, kind", o,
              [&](Statement& st, size_t i) {
                o.start[i] = st.int64(0);
                o.thread[i] = ids.thread(st.int64(1));
                o.domain[i] = ids.string(st.int64(2));
                o.name[i] = ids.string(st.int64(3));
                o.depth[i] = fieldInRange<uint16_t>(file, "open_ranges.depth", st.int64(4));
                o.kind[i] = enumInRange(file, "open_ranges.kind", st.int64(5), RangeKind::StartEnd);
              });
  }
  auto& mk = *t.marks;
  loadTable(db, file, "nvtx_marks", "ts, tid, domain_id, name_id", mk,
            [&](Statement& st, size_t i) {
              mk.start[i] = st.int64(0);
              mk.thread[i] = ids.thread(st.int64(1));
              mk.domain[i] = ids.string(st.int64(2));
              mk.name[i] = ids.string(st.int64(3));
            });
  auto& k = *t.kernels;
  loadTable(db, file, "kernels", "start, end, device, stream, correlation, name_id", k,
            [&](Statement& st, size_t i) {
              k.start[i] = st.int64(0);
              k.end[i] = st.int64(1);
              k.stream[i] = ids.stream(st.int64(2), st.int64(3));
              k.correlation[i] = fieldInRange<uint32_t>(file, "kernels.correlation", st.int64(4));
              k.name[i] = ids.string(st.int64(5));
            });
  auto& mc = *t.memcpys;
  loadTable(db, file, "memcpys", "start, end, device, stream, correlation, bytes, copy_kind", mc,
            [&](Statement& st, size_t i) {
              mc.start[i] = st.int64(0);
              mc.end[i] = st.int64(1);
              mc.stream[i] = ids.stream(st.int64(2), st.int64(3));
              mc.correlation[i] = fieldInRange<uint32_t>(file, "memcpys.correlation", st.int64(4));
              mc.bytes[i] = static_cast<uint64_t>(st.int64(5));
              mc.copyKind[i] =
                  enumInRange(file, "memcpys.copy_kind", st.int64(6), MemcpyKind::PeerToPeer);
            });
  auto& ms = *t.memsets;
  loadTable(db, file, "memsets", "start, end, device, stream, correlation, bytes", ms,
            [&](Statement& st, size_t i) {
              ms.start[i] = st.int64(0);
              ms.end[i] = st.int64(1);
              ms.stream[i] = ids.stream(st.int64(2), st.int64(3));
              ms.correlation[i] = fieldInRange<uint32_t>(file, "memsets.correlation", st.int64(4));
              ms.bytes[i] = static_cast<uint64_t>(st.int64(5));
            });
  auto& sy = *t.syncs;
  loadTable(db, file, "syncs", "start, end, device, stream, correlation, sync_type", sy,
            [&](Statement& st, size_t i) {
              sy.start[i] = st.int64(0);
              sy.end[i] = st.int64(1);
              // CUPTI reports a context-wide sync with stream id UINT32_MAX.
              sy.stream[i] =
                  st.int64(3) == UINT32_MAX ? kNoStream : ids.stream(st.int64(2), st.int64(3));
              sy.correlation[i] = fieldInRange<uint32_t>(file, "syncs.correlation", st.int64(4));
              sy.syncKind[i] =
                  enumInRange(file, "syncs.sync_type", st.int64(5), SyncKind::ContextSynchronize);
            });
  auto& a = *t.apiCalls;
  loadTable(db, file, "api_calls", "start, end, tid, name_id, correlation", a,
            [&](Statement& st, size_t i) {
              a.start[i] = st.int64(0);
              a.end[i] = st.int64(1);
              a.thread[i] = ids.thread(st.int64(2));
              a.name[i] = ids.string(st.int64(3));
              a.correlation[i] = fieldInRange<uint32_t>(file, "api_calls.correlation", st.int64(4));
            });
  auto& n = *t.ncclCalls;
  loadTable(db, file, "nccl_calls",
            "start, end, tid, op, peer, count, dtype, bytes, comm, comm_rank, comm_size, stream, "
            "group_depth, seq, id, source",
            n, [&](Statement& st, size_t i) {
              n.start[i] = st.int64(0);
              n.end[i] = st.int64(1);
              n.thread[i] = ids.thread(st.int64(2));
              n.op[i] = enumInRange(file, "nccl_calls.op", st.int64(3), kLastNcclOp);
              n.peer[i] =
                  fieldInRange<int32_t>(file, "nccl_calls.peer", st.int64(4), -1, INT32_MAX);
              n.count[i] = static_cast<uint64_t>(st.int64(5));
              n.dtype[i] = fieldInRange<uint8_t>(file, "nccl_calls.dtype", st.int64(6));
              n.bytes[i] = static_cast<uint64_t>(st.int64(7));
              n.comm[i] = static_cast<uint64_t>(st.int64(8));
              n.commRank[i] =
                  fieldInRange<int32_t>(file, "nccl_calls.comm_rank", st.int64(9), -1, INT32_MAX);
              n.commSize[i] =
                  fieldInRange<int32_t>(file, "nccl_calls.comm_size", st.int64(10), -1, INT32_MAX);
              n.streamHandle[i] = static_cast<uint64_t>(st.int64(11));
              n.groupDepth[i] = fieldInRange<uint8_t>(file, "nccl_calls.group_depth", st.int64(12));
              n.seq[i] = static_cast<uint64_t>(st.int64(13));
              n.id[i] = static_cast<uint64_t>(st.int64(14));
              n.source[i] =
                  enumInRange(file, "nccl_calls.source", st.int64(15), NcclSource::Import);
            });
  if (db.hasTable("memory_usage")) {  // schema 3 on
    auto& mu = *t.memory;
    loadTable(db, file, "memory_usage", "ts, device, allocated, reserved", mu,
              [&](Statement& st, size_t i) {
                mu.start[i] = st.int64(0);
                mu.device[i] = fieldInRange<uint32_t>(file, "memory_usage.device", st.int64(1));
                mu.allocated[i] = fieldInRange<int64_t>(file, "memory_usage.allocated",
                                                        st.int64(2), kBytesUnknown, INT64_MAX);
                mu.reserved[i] = fieldInRange<int64_t>(file, "memory_usage.reserved", st.int64(3),
                                                       kBytesUnknown, INT64_MAX);
              });
  }
  auto& c = *t.correlations;
  loadTable(db, file, "correlations", "correlation, external_kind, external_id", c,
            [&](Statement& st, size_t i) {
              c.correlation[i] =
                  fieldInRange<uint32_t>(file, "correlations.correlation", st.int64(0));
              c.externalKind[i] =
                  enumInRange(file, "correlations.external_kind", st.int64(1), ExternalKind::Other);
              c.externalId[i] = static_cast<uint64_t>(st.int64(2));
            });
}

template <class F>
auto withDatabase(const fs::path& file, F&& f) {
  checkFile(file);
  try {
    Database db(file, Database::Mode::ReadOnly);

    // One read transaction: a consistent snapshot even while an agent is still writing.
    db.exec("BEGIN");
    return f(db);
  } catch (const SqliteError& e) {
    failSqlite(file, e);
  }
}

}  // namespace

RankMeta readRankMeta(const fs::path& file) {
  return withDatabase(file, [&](Database& db) { return loadMeta(db, file); });
}

RankTrace readRankTrace(sqlite::Database& db, const fs::path& file) {
  try {
    RankTrace trace;
    trace.file = file;
    trace.meta = loadMeta(db, file);
    IdMaps ids(trace, file);
    loadEvents(db, trace, ids, file);
    tieGroupKernelsToCalls(trace);
    sortEvents(trace);
    trace.settle();
    return trace;
  } catch (const SqliteError& e) {
    failSqlite(file, e);
  }
}

RankTrace readRankTrace(const fs::path& file) {
  return withDatabase(file, [&](Database& db) { return readRankTrace(db, file); });
}

}  // namespace bubblescope::traces
