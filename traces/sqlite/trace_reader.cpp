#include "traces/sqlite/trace_reader.h"

#include <charconv>
#include <cstdint>
#include <fstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "traces/errors.h"
#include "traces/format/schema.h"
#include "traces/model/sort.h"
#include "traces/sqlite/sqlite_db.h"

namespace bubblescope::traces {
namespace {

using sqlite::Database;
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
  std::error_code ec;
  auto status = fs::status(file, ec);
  if (ec || !fs::exists(status)) throw TraceError(file, "no such file");
  if (!fs::is_regular_file(status)) throw TraceError(file, "not a regular file");
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

RankMeta loadMeta(Database& db, const fs::path& file) {
  if (!db.hasTable("meta")) {
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
  meta.schemaVersion = static_cast<int>(parseInt(file, "schema_version", kv["schema_version"]));
  if (meta.schemaVersion > kSchemaVersion) {
    throw TraceError(file, "written with trace schema " + std::to_string(meta.schemaVersion) +
                               ", newer than this bubblescope reads (" +
                               std::to_string(kSchemaVersion) + "): upgrade bubblescope");
  }
  if (meta.schemaVersion < 1) {
    throw TraceError(file, "invalid trace schema version " + std::to_string(meta.schemaVersion));
  }
  auto number = [&](const char* key, int64_t fallback) {
    auto it = kv.find(key);
    return it == kv.end() || it->second.empty() ? fallback : parseInt(file, key, it->second);
  };
  meta.source = kv["source"];
  meta.runId = kv["run_id"];
  meta.rank = static_cast<int>(number("rank", -1));
  meta.localRank = static_cast<int>(number("local_rank", -1));
  meta.worldSize = static_cast<int>(number("world_size", -1));
  meta.host = kv["host"];
  meta.pid = number("pid", 0);
  meta.command = kv["command"];
  meta.agentVersion = kv["agent_version"];
  meta.startNs = number("start_ns", 0);
  meta.cudaCapture = number("cuda_capture", 0) != 0;
  meta.cudaNote = kv["cuda_note"];
  static constexpr std::string_view kExtra = "extra.";
  for (const auto& [key, value] : kv) {
    if (key.starts_with(kExtra)) meta.extra[key.substr(kExtra.size())] = value;
  }

  auto anchors = db.prepare("SELECT realtime_ns, monotonic_ns, cupti_ns FROM clock_anchors");
  while (anchors.step()) {
    meta.clockAnchors.push_back({anchors.int64(0), anchors.int64(1), anchors.int64(2)});
  }
  auto windows = db.prepare("SELECT start_ns, end_ns, reason FROM capture_windows ORDER BY id");
  while (windows.step()) {
    meta.captureWindows.push_back(
        {windows.int64(0), windows.int64(1), std::string(windows.text(2))});
  }
  auto dropped = db.prepare("SELECT source, count FROM dropped_events");
  while (dropped.step()) {
    meta.dropped[std::string(dropped.text(0))] = static_cast<uint64_t>(dropped.int64(1));
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
    const auto key = std::pair{static_cast<uint32_t>(device), static_cast<uint64_t>(stream)};
    auto [it, added] = streams_.try_emplace(key, static_cast<StreamIndex>(trace_.streams.size()));
    if (added) trace_.streams.push_back(Stream{key.first, key.second, 0});
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
  uint64_t lastTid_ = 0;
  ThreadIndex lastThread_ = 0;
  bool haveLastTid_ = false;
};

template <class Table>
void reserveAll(Table& t, size_t n) {
  t.forEachColumn([n](auto& column) { column.reserve(n); });
}

size_t rowCount(Database& db, const char* table) {
  auto st = db.prepare(std::string("SELECT max(rowid) FROM ") + table);
  return st.step() ? static_cast<size_t>(st.int64(0)) : 0;
}

void loadEvents(Database& db, RankTrace& t, IdMaps& ids) {
  {
    auto st = db.prepare("SELECT id, value FROM strings");
    while (st.step()) ids.addString(st.int64(0), st.text(1));
  }
  {
    auto st = db.prepare("SELECT tid, name_id FROM threads");
    while (st.step()) t.threads[ids.thread(st.int64(0))].name = ids.string(st.int64(1));
  }
  {
    auto st = db.prepare("SELECT id, name_id, uuid FROM devices");
    while (st.step()) {
      t.devices.push_back(Device{static_cast<uint32_t>(st.int64(0)), ids.string(st.int64(1)),
                                 std::string(st.text(2))});
    }
  }
  {
    auto st = db.prepare("SELECT device, stream, name_id FROM streams");
    while (st.step())
      t.streams[ids.stream(st.int64(0), st.int64(1))].name = ids.string(st.int64(2));
  }
  {
    auto& r = t.ranges;
    reserveAll(r, rowCount(db, "nvtx_ranges"));
    auto st =
        db.prepare("SELECT start, end, tid, domain_id, name_id, depth, kind FROM nvtx_ranges");
    while (st.step()) {
      r.start.push_back(st.int64(0));
      r.end.push_back(st.int64(1));
      r.thread.push_back(ids.thread(st.int64(2)));
      r.domain.push_back(ids.string(st.int64(3)));
      r.name.push_back(ids.string(st.int64(4)));
      r.depth.push_back(static_cast<uint16_t>(st.int64(5)));
      r.kind.push_back(static_cast<RangeKind>(st.int64(6)));
    }
  }
  {
    auto& r = t.marks;
    reserveAll(r, rowCount(db, "nvtx_marks"));
    auto st = db.prepare("SELECT ts, tid, domain_id, name_id FROM nvtx_marks");
    while (st.step()) {
      r.start.push_back(st.int64(0));
      r.thread.push_back(ids.thread(st.int64(1)));
      r.domain.push_back(ids.string(st.int64(2)));
      r.name.push_back(ids.string(st.int64(3)));
    }
  }
  {
    auto& r = t.kernels;
    reserveAll(r, rowCount(db, "kernels"));
    auto st = db.prepare("SELECT start, end, device, stream, correlation, name_id FROM kernels");
    while (st.step()) {
      r.start.push_back(st.int64(0));
      r.end.push_back(st.int64(1));
      r.stream.push_back(ids.stream(st.int64(2), st.int64(3)));
      r.correlation.push_back(static_cast<uint32_t>(st.int64(4)));
      r.name.push_back(ids.string(st.int64(5)));
    }
  }
  {
    auto& r = t.memcpys;
    reserveAll(r, rowCount(db, "memcpys"));
    auto st =
        db.prepare("SELECT start, end, device, stream, correlation, bytes, copy_kind FROM memcpys");
    while (st.step()) {
      r.start.push_back(st.int64(0));
      r.end.push_back(st.int64(1));
      r.stream.push_back(ids.stream(st.int64(2), st.int64(3)));
      r.correlation.push_back(static_cast<uint32_t>(st.int64(4)));
      r.bytes.push_back(static_cast<uint64_t>(st.int64(5)));
      r.copyKind.push_back(static_cast<MemcpyKind>(st.int64(6)));
    }
  }
  {
    auto& r = t.memsets;
    reserveAll(r, rowCount(db, "memsets"));
    auto st = db.prepare("SELECT start, end, device, stream, correlation, bytes FROM memsets");
    while (st.step()) {
      r.start.push_back(st.int64(0));
      r.end.push_back(st.int64(1));
      r.stream.push_back(ids.stream(st.int64(2), st.int64(3)));
      r.correlation.push_back(static_cast<uint32_t>(st.int64(4)));
      r.bytes.push_back(static_cast<uint64_t>(st.int64(5)));
    }
  }
  {
    auto& r = t.syncs;
    reserveAll(r, rowCount(db, "syncs"));
    auto st = db.prepare("SELECT start, end, device, stream, correlation, sync_type FROM syncs");
    while (st.step()) {
      r.start.push_back(st.int64(0));
      r.end.push_back(st.int64(1));
      // CUPTI reports a context-wide sync with stream id UINT32_MAX.
      r.stream.push_back(st.int64(3) == UINT32_MAX ? kNoStream
                                                   : ids.stream(st.int64(2), st.int64(3)));
      r.correlation.push_back(static_cast<uint32_t>(st.int64(4)));
      r.syncKind.push_back(static_cast<SyncKind>(st.int64(5)));
    }
  }
  {
    auto& r = t.apiCalls;
    reserveAll(r, rowCount(db, "api_calls"));
    auto st = db.prepare("SELECT start, end, tid, name_id, correlation FROM api_calls");
    while (st.step()) {
      r.start.push_back(st.int64(0));
      r.end.push_back(st.int64(1));
      r.thread.push_back(ids.thread(st.int64(2)));
      r.name.push_back(ids.string(st.int64(3)));
      r.correlation.push_back(static_cast<uint32_t>(st.int64(4)));
    }
  }
  {
    auto& r = t.ncclCalls;
    reserveAll(r, rowCount(db, "nccl_calls"));
    auto st = db.prepare(
        "SELECT start, end, tid, op, peer, count, dtype, bytes, comm, comm_rank, comm_size, "
        "stream, group_depth, seq, id, source FROM nccl_calls");
    while (st.step()) {
      r.start.push_back(st.int64(0));
      r.end.push_back(st.int64(1));
      r.thread.push_back(ids.thread(st.int64(2)));
      r.op.push_back(static_cast<NcclOp>(st.int64(3)));
      r.peer.push_back(static_cast<int32_t>(st.int64(4)));
      r.count.push_back(static_cast<uint64_t>(st.int64(5)));
      r.dtype.push_back(static_cast<uint8_t>(st.int64(6)));
      r.bytes.push_back(static_cast<uint64_t>(st.int64(7)));
      r.comm.push_back(static_cast<uint64_t>(st.int64(8)));
      r.commRank.push_back(static_cast<int32_t>(st.int64(9)));
      r.commSize.push_back(static_cast<int32_t>(st.int64(10)));
      r.streamHandle.push_back(static_cast<uint64_t>(st.int64(11)));
      r.groupDepth.push_back(static_cast<uint8_t>(st.int64(12)));
      r.seq.push_back(static_cast<uint64_t>(st.int64(13)));
      r.id.push_back(static_cast<uint64_t>(st.int64(14)));
      r.source.push_back(static_cast<NcclSource>(st.int64(15)));
    }
  }
  {
    auto& r = t.correlations;
    reserveAll(r, rowCount(db, "correlations"));
    auto st = db.prepare("SELECT correlation, external_kind, external_id FROM correlations");
    while (st.step()) {
      r.correlation.push_back(static_cast<uint32_t>(st.int64(0)));
      r.externalKind.push_back(static_cast<ExternalKind>(st.int64(1)));
      r.externalId.push_back(static_cast<uint64_t>(st.int64(2)));
    }
  }
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

RankTrace readRankTrace(const fs::path& file) {
  return withDatabase(file, [&](Database& db) {
    RankTrace trace;
    trace.file = file;
    trace.meta = loadMeta(db, file);
    IdMaps ids(trace, file);
    loadEvents(db, trace, ids);
    sortEvents(trace);
    return trace;
  });
}

}  // namespace bubblescope::traces
