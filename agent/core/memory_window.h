#pragma once
// The writer's side of a memory window (`bubblescope watch`, docs/agent.md): the window is
// recorded as a file window is, by the same producers and decoders, into a trace held in memory
// (traces::TraceWriter::inMemory) that is pruned to the last `keep` seconds and read, on a
// `snapshot` request, as an SQLite image. Nothing of it reaches the disk.
#include <cstdint>
#include <memory>
#include <string>

#include "traces/model/trace.h"
#include "traces/sqlite/trace_mirror.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::agent {

// A memory window's trace: the process's metadata, as its file would have it, and no windows
// yet (the writer adds the memory window as it adds a file's).
std::unique_ptr<traces::TraceWriter> makeMemoryTrace(traces::RankMeta meta, int64_t startNs);

// When a memory window's trace is pruned, and to what.
class MemoryPruning {
 public:
  // A prune runs at most this often: the trace holds at most `keep` plus this.
  static constexpr int64_t kEveryNs = 200'000'000;

  // After a commit at nowNs (CLOCK_REALTIME): deletes what ended more than keepNs ago, when a
  // prune is due.
  void afterCommit(traces::TraceWriter& trace, int64_t nowNs, int64_t keepNs);
  // Nothing that ended before this is in the trace any more (0 before the first prune).
  int64_t cutoffNs() const { return cutoffNs_; }

 private:
  int64_t lastNs_ = 0;
  int64_t cutoffNs_ = 0;
};

// A watch beside a file window: its trace follows the file's commits (traces::TraceMirror), so the
// file gets exactly what it gets without a watch, and the events are decoded once. Its cost is a
// read of what each commit added, paid only while the watch's lease is live.
struct FileMirror {
  std::unique_ptr<traces::TraceWriter> trace;        // in memory
  std::unique_ptr<traces::TraceMirror> copy;         // once there is a file to follow
  const traces::TraceWriter* fileAtStart = nullptr;  // the file then: only its new events count
  int64_t serial = -1;                               // the recorder's watch it serves
  int64_t keepNs = 0;
  int64_t startNs = 0;
  // Its trace holds every event that ended since then (a trace carried over: earlier).
  int64_t heldFromNs = 0;
  bool broken = false;  // a copy failed: the watch ends
  MemoryPruning pruning;
};

// What a `snapshot` request gets.
struct MemorySnapshot {
  bool ok = false;
  std::string image;       // an SQLite image of a rank trace (when ok)
  std::string error;       // one line (when not)
  int64_t nowNs = 0;       // CLOCK_REALTIME when the image was taken
  int64_t heldFromNs = 0;  // events that ended before this were pruned (the window's start if none)
  int64_t windowStartNs = 0;
};

// The image of `trace`, refused (with its size) beyond maxBytes. The writer must be between
// batches: the caller holds the writer's I/O lock.
MemorySnapshot imageOf(traces::TraceWriter& trace, uint64_t maxBytes);

}  // namespace bubblescope::agent
