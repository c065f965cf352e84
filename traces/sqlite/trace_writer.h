#pragma once
// Writes one rank's trace file. Batched: rows go into one open transaction that commit() ends
// (the agent's writer thread commits at least every 200 ms), in WAL mode with prepared
// statements, so a killed process leaves a readable file with every committed batch. Or the same
// trace in memory (a memory window for `bubblescope watch`), read as an SQLite image and pruned
// to its last seconds.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "traces/model/trace.h"
#include "traces/sqlite/records.h"

namespace bubblescope::traces {

namespace sqlite {
class Database;
class Statement;
}  // namespace sqlite

// Hash that lets an unordered_map<std::string, ...> be searched with a string_view.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// Who may read a new trace: what the process's umask leaves of 0666, like any tool's output (a
// teammate analyses a shared run directory), or its owner only (0600), for a run that asks.
// SQLite gives the -wal and -shm the file's mode.
enum class TraceAccess { Umask, OwnerOnly };

// The most an in-memory trace may grow to: beyond it a write fails (SQLITE_FULL), as on a full
// disk. It bounds what a memory window can take of a job's memory.
inline constexpr int64_t kMaxMemoryTraceBytes = int64_t{256} << 20;

class TraceMirror;

class TraceWriter {
 public:
  // Creates `file` (it must not exist) with the schema and the metadata of `meta` (its clock
  // anchors, windows and drop counts too). Throws TraceError, and then leaves no file;
  // TraceFileExists when `file` exists.
  TraceWriter(const std::filesystem::path& file, const RankMeta& meta,
              TraceAccess access = TraceAccess::Umask);
  // The same trace in memory: no file, nothing written to disk. Throws TraceError (named
  // `label`) when SQLite cannot make it.
  static std::unique_ptr<TraceWriter> inMemory(const RankMeta& meta,
                                               const std::string& label = "memory trace");
  ~TraceWriter();  // close(), errors swallowed: destructors must not throw
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  // Id of `s` in this file; the first use writes it in the current batch.
  StringId intern(std::string_view s);

  void addThread(uint64_t tid, std::string_view name);  // a later call renames
  // memoryBytes: the device's total memory, 0 = unknown.
  void addDevice(uint32_t id, std::string_view name, std::string_view uuid,
                 uint64_t memoryBytes = 0);
  void addStream(uint32_t device, uint64_t stream, std::string_view name);

  void add(const RangeRecord& r);
  void add(const MarkRecord& r);
  void add(const KernelRecord& r);
  void add(const MemcpyRecord& r);
  void add(const MemsetRecord& r);
  void add(const SyncRecord& r);
  void add(const ApiCallRecord& r);
  void add(const NcclCallRecord& r);
  void add(const CorrelationRecord& r);
  void add(const MemoryUsageRecord& r);

  // The ranges open now, replacing those written before (one snapshot per file), and when the
  // process was last seen alive (meta.alive_ns): what a hang leaves behind.
  void replaceOpenRanges(const std::vector<OpenRangeRecord>& open);
  void setAliveNs(TimeNs now);

  void addClockAnchor(const ClockAnchor& a);
  // Returns the window's id for closeCaptureWindow. An open window has end 0 in the file.
  int64_t openCaptureWindow(TimeNs start, std::string_view reason);
  void closeCaptureWindow(int64_t id, TimeNs end);
  void setDropped(std::string_view source, uint64_t count);
  void setMeta(std::string_view key, std::string_view value);

  // Ends the current batch: everything added so far is durable against a process kill.
  void commit();
  // commit(), then builds the indexes (unless told not to: about 1 s per million events, which a
  // process at exit may not have) and folds the WAL back into the file. Idempotent. A file
  // without indexes reads the same.
  void close(bool buildIndexes = true);

  // In-memory traces only. The committed trace as an SQLite database image (sqlite3_serialize),
  // which sqlite3_deserialize (sqlite::Database::fromBytes) and the trace reader read as they read
  // a file; imageBytes() is its size, known without making it.
  std::string image();
  uint64_t imageBytes();
  // In-memory traces only: deletes, in a batch of its own (committed), the events that ended
  // before `cutoff` (ranges, marks, kernels, copies, sets, synchronisations, API and NCCL calls,
  // memory samples but each device's latest) and correlations older than every event still
  // held. Names, threads, devices, streams, windows, anchors but the latest before `cutoff`, and
  // the metadata stay. The freed pages are given back, so the trace holds its last seconds only.
  void pruneBefore(TimeNs cutoff);
  bool inMemory() const { return inMemory_; }

  uint64_t eventsWritten() const { return events_; }
  const std::filesystem::path& file() const { return file_; }

 private:
  friend class TraceMirror;  // reads the file's rows through its connection
  struct Statements;
  struct Pruning;
  TraceWriter() = default;
  void create(const RankMeta& meta);  // the schema and the meta, in the file just created
  void begin();
  template <class... Values>
  void insertRow(sqlite::Statement& st, Values... values);

  std::filesystem::path file_;
  std::unique_ptr<sqlite::Database> db_;
  std::unique_ptr<Statements> st_;
  std::unique_ptr<Pruning> prune_;  // prepared on the first pruneBefore
  std::unordered_map<std::string, StringId, StringHash, std::equal_to<>> strings_;
  bool inBatch_ = false;
  bool closed_ = false;
  bool inMemory_ = false;
  uint64_t events_ = 0;
};

// Writes a whole in-memory trace (importers, tests) to a new file.
void writeRankTrace(const RankTrace& trace, const std::filesystem::path& file);
// Its rows (all but the meta, which made `writer`) into a writer, committed: an in-memory one.
void writeRankTraceRows(const RankTrace& trace, TraceWriter& writer);

}  // namespace bubblescope::traces
