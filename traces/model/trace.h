#pragma once
// The in-memory trace model: one RankTrace per process, a Run per job. The analyzer and viewer
// work on this model whatever recorded the trace (our agent, Kineto JSON, Nsight SQLite).
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "traces/model/column_group.h"
#include "traces/model/events.h"
#include "traces/model/string_table.h"
#include "traces/model/time.h"

namespace bubblescope::traces {

// Clocks read together at one moment, so timestamps from different clocks can be related.
struct ClockAnchor {
  TimeNs realtimeNs = 0;
  TimeNs monotonicNs = 0;
  TimeNs cuptiNs = 0;  // cuptiGetTimestamp(), 0 when CUPTI is not active
};

struct CaptureWindow {
  TimeNs start = 0;
  TimeNs end = 0;      // 0 while the window is still open (a killed process)
  std::string reason;  // "record", "attach --steps 2", ...
};

struct RankMeta {
  int schemaVersion = 0;
  std::string source = "bubblescope-agent";  // or "kineto", "nsys", "test"
  std::string runId;  // same for every rank of one job (set by `bubblescope record`)
  int rank = -1;      // -1 = unknown
  int localRank = -1;
  int worldSize = -1;
  std::string host;
  int64_t pid = 0;
  std::string command;
  std::string agentVersion;
  TimeNs startNs = 0;
  TimeNs aliveNs = 0;        // last time the writer committed (schema 2; 0 = unknown)
  bool cudaCapture = false;  // whether CUPTI capture was active
  std::string cudaNote;      // why it was not, if it was not
  std::vector<ClockAnchor> clockAnchors;
  std::vector<CaptureWindow> captureWindows;
  std::map<std::string, uint64_t> dropped;   // events dropped, by source ("nvtx", "cupti", ...)
  std::map<std::string, std::string> extra;  // other key/values, e.g. BUBBLESCOPE_PP_SIZE

  uint64_t droppedTotal() const {
    uint64_t n = 0;
    for (const auto& entry : dropped) n += entry.second;
    return n;
  }
};

struct Thread {
  uint64_t tid = 0;  // OS thread id
  StringId name = 0;
};

struct Device {
  uint32_t id = 0;
  StringId name = 0;
  std::string uuid;
  uint64_t memoryBytes = 0;  // total device memory (schema 3), 0 = unknown
};

struct Stream {
  uint32_t device = 0;
  uint64_t streamId = 0;  // CUPTI stream id (or the importer's)
  StringId name = 0;
};

struct RankTrace {
  std::filesystem::path file;  // where it was read from, for messages
  RankMeta meta;
  StringTable strings;
  std::vector<Thread> threads;
  std::vector<Device> devices;
  std::vector<Stream> streams;

  // Each table is made only once the rank has such events (column_group.h).
  ColumnGroup<NvtxRanges> ranges;
  ColumnGroup<OpenRanges> openRanges;  // not counted as events: what was still running
  ColumnGroup<NvtxMarks> marks;
  ColumnGroup<Kernels> kernels;
  ColumnGroup<Memcpys> memcpys;
  ColumnGroup<Memsets> memsets;
  ColumnGroup<Syncs> syncs;
  ColumnGroup<ApiCalls> apiCalls;
  ColumnGroup<NcclCalls> ncclCalls;
  ColumnGroup<Correlations> correlations;
  ColumnGroup<MemoryUsage> memory;  // schema 3

  size_t eventCount() const {
    return ranges->size() + marks->size() + kernels->size() + memcpys->size() + memsets->size() +
           syncs->size() + apiCalls->size() + ncclCalls->size() + memory->size();
  }

  // Calls f on each table's group of `t` (a RankTrace, const or not), in one order: a shard's
  // bytes (trace_codec.h) keep it.
  template <class Trace, class F>
  static void forEachGroup(Trace& t, F&& f) {
    f(t.ranges), f(t.openRanges), f(t.marks), f(t.kernels), f(t.memcpys), f(t.memsets);
    f(t.syncs), f(t.apiCalls), f(t.ncclCalls), f(t.correlations), f(t.memory);
  }
  // Frees the tables that hold no event, so a table made on the way costs nothing after.
  void dropEmptyTables() {
    forEachGroup(*this, [](auto& group) { group.dropIfEmpty(); });
  }
  // What every loader ends with: the empty tables freed and the string table's growth room given
  // back (StringTable::shrinkToFit).
  void settle() {
    dropEmptyTables();
    strings.shrinkToFit();
  }

  // Index of the thread with this OS tid, added if new.
  ThreadIndex threadIndex(uint64_t tid);
  // Index of the stream (device, streamId), added if new.
  StreamIndex streamIndex(uint32_t device, uint64_t streamId);
};

// One job: every rank's trace, ordered by rank.
struct Run {
  std::filesystem::path dir;
  std::vector<RankTrace> ranks;

  size_t eventCount() const {
    size_t n = 0;
    for (const auto& r : ranks) n += r.eventCount();
    return n;
  }
};

}  // namespace bubblescope::traces
