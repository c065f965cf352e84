#pragma once
// One trace the writer thread writes into, with what it has written there so far: the process's
// trace file, or the trace of a memory window (memory_window.h). The writer keeps the file aside,
// untouched, while a memory window is open, and goes on with it afterwards.
#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_set>
#include <vector>

#include "agent/core/record_sink.h"
#include "agent/core/thread_state.h"
#include "agent/core/trace_handles.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::agent {

struct WriterOutput {
  WriterOutput() {
    for (auto& d : droppedWritten) d = UINT64_MAX;
    for (auto& d : droppedCommitted) d = UINT64_MAX;
  }

  std::unique_ptr<traces::TraceWriter> trace;
  TraceHandles handles;  // the file's descriptors (none for a memory trace)
  std::optional<RecordSink> sink;
  int64_t startNs = 0;  // when a later part or a memory trace began (0 for the first file)
  int64_t lastCommitNs = 0;
  uint64_t eventsAtCommit = 0;
  uint64_t recorderVersion = UINT64_MAX;
  int endSignalWritten = 0;
  std::vector<int64_t> windowIds;   // trace ids of the recorder's windows so far (-1: not here)
  std::vector<int64_t> windowEnds;  // their end as written (0 = open)
  uint64_t droppedWritten[kSourceCount];    // the process's totals as last written (or UINT64_MAX)
  uint64_t droppedCommitted[kSourceCount];  // ... as last committed
  uint64_t droppedBefore[kSourceCount] = {};  // totals counted before this trace: not its own
  std::unordered_set<uint64_t> tidsSeen;
};

}  // namespace bubblescope::agent
