#pragma once
// Follows a trace file as its writer commits it, into an in-memory trace (TraceWriter::inMemory):
// how a process that records to a file is watched too (a memory window beside a file window,
// docs/agent.md). The rows are read back through the file writer's own connection, so the file
// gets exactly what it would without a mirror. Names are interned into the mirror's own strings
// (the string ids of its name_id and domain_id columns renumbered), so the mirror may be a trace
// that holds events already: a watch's trace goes on across a file window.
#include <cstdint>
#include <memory>
#include <vector>

#include "traces/sqlite/trace_writer.h"

namespace bubblescope::traces {

class TraceMirror {
 public:
  // fromStart: every row of `file` is copied; else the events it holds now are left out (its
  // names, threads, devices, streams and metadata are copied all the same). Both writers must
  // be between batches, and outlive the mirror (it holds statements on the file's connection:
  // destroy it before the file closes).
  TraceMirror(TraceWriter& file, TraceWriter& mirror, bool fromStart);
  ~TraceMirror();
  TraceMirror(const TraceMirror&) = delete;
  TraceMirror& operator=(const TraceMirror&) = delete;

  // Copies what `file` committed since the last call into the mirror, in one batch of the
  // mirror's. Both must be between batches. Throws TraceError naming the mirror.
  void copyCommitted();
  const TraceWriter* file() const { return file_; }

 private:
  struct Table;
  TraceWriter* file_;
  TraceWriter* mirror_;
  std::unique_ptr<Table[]> tables_;
  std::vector<StringId> ids_;  // the file's string id -> the mirror's
  int64_t changesSeen_ = -1;   // the file connection's change count at the last copy
};

}  // namespace bubblescope::traces
