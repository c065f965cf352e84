#include "traces/sqlite/trace_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "traces/errors.h"
#include "traces/format/schema.h"
#include "traces/sqlite/sqlite_db.h"

namespace bubblescope::traces {

using sqlite::Database;
using sqlite::Statement;

struct TraceWriter::Statements {
  explicit Statements(Database& db)
      : begin(db.prepare("BEGIN")),
        commit(db.prepare("COMMIT")),
        string(db.prepare("INSERT INTO strings(id, value) VALUES(?,?)")),
        thread(db.prepare("INSERT OR REPLACE INTO threads(tid, name_id) VALUES(?,?)")),
        device(db.prepare("INSERT OR REPLACE INTO devices(id, name_id, uuid, memory_bytes) "
                          "VALUES(?,?,?,?)")),
        stream(db.prepare("INSERT OR REPLACE INTO streams(device, stream, name_id) VALUES(?,?,?)")),
        range(db.prepare("INSERT INTO nvtx_ranges(start, end, tid, end_tid, domain_id, name_id, "
                         "depth, kind, category, color) VALUES(?,?,?,?,?,?,?,?,?,?)")),
        mark(db.prepare("INSERT INTO nvtx_marks(ts, tid, domain_id, name_id) VALUES(?,?,?,?)")),
        kernel(db.prepare("INSERT INTO kernels(start, end, device, stream, correlation, name_id, "
                          "grid_x, grid_y, grid_z, block_x, block_y, block_z, registers, "
                          "shared_static, shared_dynamic) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")),
        memcpy(db.prepare("INSERT INTO memcpys(start, end, device, stream, correlation, bytes, "
                          "copy_kind, src_kind, dst_kind) VALUES(?,?,?,?,?,?,?,?,?)")),
        memset(db.prepare("INSERT INTO memsets(start, end, device, stream, correlation, bytes, "
                          "value) VALUES(?,?,?,?,?,?,?)")),
        sync(db.prepare("INSERT INTO syncs(start, end, device, stream, correlation, sync_type) "
                        "VALUES(?,?,?,?,?,?)")),
        api(db.prepare("INSERT INTO api_calls(start, end, tid, name_id, correlation, cbid, domain, "
                       "return_value) VALUES(?,?,?,?,?,?,?,?)")),
        nccl(db.prepare("INSERT INTO nccl_calls(id, start, end, tid, op, peer, count, dtype, "
                        "bytes, comm, comm_rank, comm_size, stream, group_depth, seq, source) "
                        "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")),
        correlation(db.prepare("INSERT INTO correlations(correlation, external_kind, "
                               "external_id) VALUES(?,?,?)")),
        anchor(db.prepare("INSERT INTO clock_anchors(realtime_ns, monotonic_ns, cupti_ns) "
                          "VALUES(?,?,?)")),
        openWindow(db.prepare("INSERT INTO capture_windows(start_ns, end_ns, reason) "
                              "VALUES(?,0,?)")),
        closeWindow(db.prepare("UPDATE capture_windows SET end_ns=? WHERE id=?")),
        dropped(db.prepare("INSERT OR REPLACE INTO dropped_events(source, count) VALUES(?,?)")),
        meta(db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES(?,?)")),
        clearOpen(db.prepare("DELETE FROM open_ranges")),
        open(db.prepare("INSERT INTO open_ranges(start, tid, domain_id, name_id, depth, kind) "
                        "VALUES(?,?,?,?,?,?)")),
        memory(db.prepare("INSERT INTO memory_usage(ts, device, allocated, reserved) "
                          "VALUES(?,?,?,?)")) {}

  Statement begin, commit, string, thread, device, stream, range, mark, kernel, memcpy, memset,
      sync, api, nccl, correlation, anchor, openWindow, closeWindow, dropped, meta, clearOpen, open,
      memory;
};

namespace {

// Binds values to parameters 1..n in order.
template <class... Values>
void bindAll(Statement& st, Values... values) {
  int i = 1;
  (st.bind(i++, static_cast<int64_t>(values)), ...);
}

[[noreturn]] void failWrite(const std::filesystem::path& file, const std::exception& e) {
  throw TraceError(file, std::string("cannot write the trace: ") + e.what());
}

// Runs f, turning SQLite failures (disk full, I/O error) into a TraceError naming the file.
template <class F>
auto guard(const std::filesystem::path& file, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const sqlite::SqliteError& e) {
    failWrite(file, e);
  }
}

void createExclusive(const std::filesystem::path& file, TraceAccess access) {
  const mode_t mode = access == TraceAccess::OwnerOnly ? 0600 : 0666;  // the umask applies
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) {
    const int err = errno;
    const std::string why = std::string("cannot create the trace file: ") + std::strerror(err);
    if (err == EEXIST) throw TraceFileExists(file, why);
    throw TraceError(file, why);
  }
  ::close(fd);
}

// A trace this writer created and could not finish (the schema or the meta did not fit): with
// its -wal and -shm, it goes, so no reader or `record` count finds a file without a meta table.
void removeHalfMade(const std::filesystem::path& file) {
  std::error_code ignored;
  for (const char* suffix : {"-wal", "-shm", ""}) {
    std::filesystem::remove(file.string() + suffix, ignored);
  }
}

}  // namespace

// A memory trace is pruned by time every 200 ms: an index on each event table's end makes a prune
// cost what it deletes, not what the trace holds (rows come mostly in end order, so each insert
// adds at the index's right edge).
constexpr std::string_view kMemoryIndexSql = R"sql(
CREATE INDEX nvtx_ranges_by_end ON nvtx_ranges(end);
CREATE INDEX nvtx_marks_by_ts ON nvtx_marks(ts);
CREATE INDEX kernels_by_end ON kernels(end);
CREATE INDEX memcpys_by_end ON memcpys(end);
CREATE INDEX memsets_by_end ON memsets(end);
CREATE INDEX syncs_by_end ON syncs(end);
CREATE INDEX api_calls_by_end ON api_calls(end);
CREATE INDEX nccl_calls_by_end ON nccl_calls(end);
)sql";

// The deletes of pruneBefore, one per event table (?1 = the cutoff).
struct TraceWriter::Pruning {
  explicit Pruning(Database& db) {
    for (const char* table :
         {"nvtx_ranges", "kernels", "memcpys", "memsets", "syncs", "api_calls", "nccl_calls"}) {
      deletes.push_back(db.prepare(std::string("DELETE FROM ") + table + " WHERE end < ?1"));
    }
    deletes.push_back(db.prepare("DELETE FROM nvtx_marks WHERE ts < ?1"));
    // A sample holds until the next on its device: each device's latest before the cutoff is
    // its memory at the cutoff. (SQLite's max() gives the other columns of the row it picked.)
    deletes.push_back(db.prepare(
        "DELETE FROM memory_usage WHERE ts < ?1 AND rowid NOT IN (SELECT r FROM (SELECT rowid AS "
        "r, max(ts) FROM memory_usage WHERE ts < ?1 GROUP BY device))"));
    deletes.push_back(db.prepare(
        "DELETE FROM clock_anchors WHERE realtime_ns < ?1 AND rowid NOT IN (SELECT r FROM "
        "(SELECT rowid AS r, max(realtime_ns) FROM clock_anchors WHERE realtime_ns < ?1))"));
    // Correlations have no time. CUPTI numbers calls in order, so those below the smallest
    // number any event still held carries belong to events pruned already.
    correlations.emplace(
        db.prepare("DELETE FROM correlations WHERE correlation < (SELECT min(c) FROM ("
                   "SELECT min(correlation) AS c FROM kernels WHERE correlation > 0 UNION ALL "
                   "SELECT min(correlation) FROM memcpys WHERE correlation > 0 UNION ALL "
                   "SELECT min(correlation) FROM memsets WHERE correlation > 0 UNION ALL "
                   "SELECT min(correlation) FROM syncs WHERE correlation > 0 UNION ALL "
                   "SELECT min(correlation) FROM api_calls WHERE correlation > 0))"));
  }
  std::vector<Statement> deletes;          // by time
  std::optional<Statement> correlations;  // after them, by what is left
};

TraceWriter::TraceWriter(const std::filesystem::path& file, const RankMeta& meta,
                         TraceAccess access)
    : file_(file) {
  createExclusive(file, access);
  try {
    create(meta);
  } catch (...) {
    st_.reset();
    db_.reset();
    removeHalfMade(file);
    throw;
  }
}

std::unique_ptr<TraceWriter> TraceWriter::inMemory(const RankMeta& meta, const std::string& label) {
  std::unique_ptr<TraceWriter> w(new TraceWriter);
  w->file_ = label;
  w->inMemory_ = true;
  w->create(meta);
  return w;
}

void TraceWriter::create(const RankMeta& meta) {
  guard(file_, [&] {
    if (inMemory_) {
      db_ = std::make_unique<Database>(Database::inMemory(kMaxMemoryTraceBytes));
      // Incremental auto-vacuum: pages freed by pruneBefore are cut off the end, so the image
      // shrinks when the job's rate drops (in a steady state the next batch reuses them). The
      // journal stays in memory too.
      db_->exec("PRAGMA auto_vacuum=INCREMENTAL; PRAGMA journal_mode=MEMORY;");
    } else {
      db_ = std::make_unique<Database>(file_, Database::Mode::CreateNew);
      // WAL: a commit appends to the log, readers never see half a batch and a killed process
      // loses only the batch in flight. NORMAL: no fsync per commit (a process kill keeps what
      // the kernel has; only a power loss could drop the last batches).
      db_->exec("PRAGMA page_size=16384; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;");
    }
    db_->exec("BEGIN");
    db_->exec(kSchemaSql);
    if (inMemory_) db_->exec(kMemoryIndexSql);
    db_->exec("COMMIT");
    st_ = std::make_unique<Statements>(*db_);
    strings_.emplace("", 0);
    begin();
    st_->string.bind(1, int64_t{0});
    st_->string.bind(2, std::string_view(""));
    st_->string.run();

    setMeta("format", kFormatName);
    setMeta("schema_version", std::to_string(kSchemaVersion));
    setMeta("source", meta.source);
    setMeta("run_id", meta.runId);
    setMeta("rank", std::to_string(meta.rank));
    setMeta("local_rank", std::to_string(meta.localRank));
    setMeta("world_size", std::to_string(meta.worldSize));
    setMeta("host", meta.host);
    setMeta("pid", std::to_string(meta.pid));
    setMeta("command", meta.command);
    setMeta("agent_version", meta.agentVersion);
    setMeta("start_ns", std::to_string(meta.startNs));
    setMeta("cuda_capture", meta.cudaCapture ? "1" : "0");
    setMeta("cuda_note", meta.cudaNote);
    for (const auto& [key, value] : meta.extra) setMeta("extra." + key, value);
    for (const auto& a : meta.clockAnchors) addClockAnchor(a);
    for (const auto& w : meta.captureWindows) {
      int64_t id = openCaptureWindow(w.start, w.reason);
      if (w.end != 0) closeCaptureWindow(id, w.end);
    }
    for (const auto& [source, count] : meta.dropped) setDropped(source, count);
    commit();
  });
}

TraceWriter::~TraceWriter() {
  try {
    close();
  } catch (...) {
    // A destructor must not throw; close() explicitly to learn about failures.
  }
}

void TraceWriter::begin() {
  if (inBatch_) return;
  st_->begin.run();
  inBatch_ = true;
}

StringId TraceWriter::intern(std::string_view s) {
  if (auto it = strings_.find(s); it != strings_.end()) return it->second;
  const auto id = static_cast<StringId>(strings_.size());
  guard(file_, [&] {
    begin();
    st_->string.bind(1, static_cast<int64_t>(id));
    st_->string.bind(2, s);
    st_->string.run();
  });
  strings_.emplace(std::string(s), id);
  return id;
}

void TraceWriter::addThread(uint64_t tid, std::string_view name) {
  StringId nameId = intern(name);
  guard(file_, [&] {
    begin();
    bindAll(st_->thread, tid, nameId);
    st_->thread.run();
  });
}

void TraceWriter::addDevice(uint32_t id, std::string_view name, std::string_view uuid,
                            uint64_t memoryBytes) {
  StringId nameId = intern(name);
  guard(file_, [&] {
    begin();
    bindAll(st_->device, id, nameId);
    st_->device.bind(3, uuid);
    st_->device.bind(4, static_cast<int64_t>(memoryBytes));
    st_->device.run();
  });
}

void TraceWriter::addStream(uint32_t device, uint64_t stream, std::string_view name) {
  StringId nameId = intern(name);
  guard(file_, [&] {
    begin();
    bindAll(st_->stream, device, stream, nameId);
    st_->stream.run();
  });
}

// Every add() is the same three steps: open the batch, bind the row, run the insert.
template <class... Values>
void TraceWriter::insertRow(sqlite::Statement& st, Values... values) {
  guard(file_, [&] {
    begin();
    bindAll(st, values...);
    st.run();
  });
}

void TraceWriter::add(const RangeRecord& r) {
  insertRow(st_->range, r.start, r.end, r.tid, r.endTid, r.domain, r.name, r.depth,
            static_cast<uint8_t>(r.kind), r.category, r.color);
  ++events_;
}

void TraceWriter::add(const MarkRecord& r) {
  insertRow(st_->mark, r.ts, r.tid, r.domain, r.name);
  ++events_;
}

void TraceWriter::add(const KernelRecord& r) {
  insertRow(st_->kernel, r.start, r.end, r.device, r.stream, r.correlation, r.name, r.grid[0],
            r.grid[1], r.grid[2], r.block[0], r.block[1], r.block[2], r.registers, r.sharedStatic,
            r.sharedDynamic);
  ++events_;
}

void TraceWriter::add(const MemcpyRecord& r) {
  insertRow(st_->memcpy, r.start, r.end, r.device, r.stream, r.correlation, r.bytes,
            static_cast<uint8_t>(r.copyKind), r.srcKind, r.dstKind);
  ++events_;
}

void TraceWriter::add(const MemsetRecord& r) {
  insertRow(st_->memset, r.start, r.end, r.device, r.stream, r.correlation, r.bytes, r.value);
  ++events_;
}

void TraceWriter::add(const SyncRecord& r) {
  insertRow(st_->sync, r.start, r.end, r.device, r.stream, r.correlation,
            static_cast<uint8_t>(r.syncKind));
  ++events_;
}

void TraceWriter::add(const ApiCallRecord& r) {
  insertRow(st_->api, r.start, r.end, r.tid, r.name, r.correlation, r.cbid,
            static_cast<uint8_t>(r.domain), r.returnValue);
  ++events_;
}

void TraceWriter::add(const NcclCallRecord& r) {
  insertRow(st_->nccl, r.id, r.start, r.end, r.tid, static_cast<uint8_t>(r.op), r.peer, r.count,
            r.dtype, r.bytes, r.comm, r.commRank, r.commSize, r.stream, r.groupDepth, r.seq,
            static_cast<uint8_t>(r.source));
  ++events_;
}

void TraceWriter::add(const CorrelationRecord& r) {
  insertRow(st_->correlation, r.correlation, static_cast<uint8_t>(r.externalKind), r.externalId);
  // not counted: a correlation links events, it is not one
}

void TraceWriter::add(const MemoryUsageRecord& r) {
  insertRow(st_->memory, r.ts, r.device, r.allocated, r.reserved);
  ++events_;
}

void TraceWriter::addClockAnchor(const ClockAnchor& a) {
  guard(file_, [&] {
    begin();
    bindAll(st_->anchor, a.realtimeNs, a.monotonicNs, a.cuptiNs);
    st_->anchor.run();
  });
}

int64_t TraceWriter::openCaptureWindow(TimeNs start, std::string_view reason) {
  return guard(file_, [&] {
    begin();
    st_->openWindow.bind(1, start);
    st_->openWindow.bind(2, reason);
    st_->openWindow.run();
    return sqlite3_last_insert_rowid(db_->handle());
  });
}

void TraceWriter::closeCaptureWindow(int64_t id, TimeNs end) {
  guard(file_, [&] {
    begin();
    bindAll(st_->closeWindow, end, id);
    st_->closeWindow.run();
  });
}

void TraceWriter::setDropped(std::string_view source, uint64_t count) {
  guard(file_, [&] {
    begin();
    st_->dropped.bind(1, source);
    st_->dropped.bind(2, static_cast<int64_t>(count));
    st_->dropped.run();
  });
}

void TraceWriter::replaceOpenRanges(const std::vector<OpenRangeRecord>& open) {
  guard(file_, [&] {
    begin();
    st_->clearOpen.run();
  });
  // Not events: a snapshot of state, so events_ (the batch size) is left alone.
  for (const OpenRangeRecord& r : open) {
    insertRow(st_->open, r.start, r.tid, r.domain, r.name, r.depth, static_cast<int>(r.kind));
  }
}

void TraceWriter::setAliveNs(TimeNs now) {
  setMeta("alive_ns", std::to_string(now));
}

void TraceWriter::setMeta(std::string_view key, std::string_view value) {
  guard(file_, [&] {
    begin();
    st_->meta.bind(1, key);
    st_->meta.bind(2, value);
    st_->meta.run();
  });
}

void TraceWriter::commit() {
  if (!inBatch_) return;
  try {
    inBatch_ = false;
    st_->commit.run();
  } catch (const sqlite::SqliteError& e) {
    // A failed COMMIT (disk full) leaves the transaction open: roll it back so the file stays
    // at the last good batch.
    sqlite3_exec(db_->handle(), "ROLLBACK", nullptr, nullptr, nullptr);
    failWrite(file_, e);
  }
}

std::string TraceWriter::image() {
  if (!inMemory_ || !db_ || inBatch_) {
    throw TraceError(file_, "no committed in-memory trace to take an image of");
  }
  sqlite3_int64 size = 0;
  // memdb holds the database in one block: read in place, copied once into the string.
  if (const unsigned char* p =
          sqlite3_serialize(db_->handle(), "main", &size, SQLITE_SERIALIZE_NOCOPY)) {
    return std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(size));
  }
  unsigned char* copy = sqlite3_serialize(db_->handle(), "main", &size, 0);
  if (copy == nullptr) throw TraceError(file_, "cannot take an image of the trace (out of memory)");
  std::string bytes(reinterpret_cast<const char*>(copy), static_cast<size_t>(size));
  sqlite3_free(copy);
  return bytes;
}

uint64_t TraceWriter::imageBytes() {
  if (!db_) return 0;
  return guard(file_, [&] {
    auto pages = db_->prepare("PRAGMA page_count");
    auto pageSize = db_->prepare("PRAGMA page_size");
    pages.step();
    pageSize.step();
    return static_cast<uint64_t>(pages.int64(0)) * static_cast<uint64_t>(pageSize.int64(0));
  });
}

void TraceWriter::pruneBefore(TimeNs cutoff) {
  if (!inMemory_ || !db_ || closed_) return;
  commit();
  guard(file_, [&] {
    if (!prune_) prune_ = std::make_unique<Pruning>(*db_);
    begin();
    for (Statement& d : prune_->deletes) {
      d.bind(1, cutoff);
      d.run();
    }
    prune_->correlations->run();
  });
  commit();
  guard(file_, [&] { db_->exec("PRAGMA incremental_vacuum"); });
}

void TraceWriter::close(bool buildIndexes) {
  if (closed_ || !db_) return;
  closed_ = true;
  try {
    commit();
    if (buildIndexes && !inMemory_) db_->exec(kIndexSql);
    if (!inMemory_) db_->exec("PRAGMA wal_checkpoint(TRUNCATE)");
  } catch (const sqlite::SqliteError& e) {
    st_.reset();
    db_.reset();
    failWrite(file_, e);
  }
  st_.reset();
  db_.reset();
}

}  // namespace bubblescope::traces
