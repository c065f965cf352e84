#pragma once
// Builds one RankTrace event by event, as importers read them: interns names, keeps thread and
// stream indexes in hash maps (the model's own lookups are linear), and at the end shifts times to
// the epoch, computes range nesting and sorts every table.
#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "traces/model/trace.h"

namespace bubblescope::traces::import {

class RankBuilder {
 public:
  RankBuilder() = default;
  explicit RankBuilder(RankMeta meta) { trace_.meta = std::move(meta); }

  RankTrace& trace() { return trace_; }
  RankMeta& meta() { return trace_.meta; }
  StringId intern(std::string_view s) { return trace_.strings.intern(s); }

  ThreadIndex thread(uint64_t tid);
  void nameThread(uint64_t tid, std::string_view name);
  StreamIndex stream(uint32_t device, uint64_t streamId);
  void nameStream(uint32_t device, uint64_t streamId, std::string_view name);
  void addDevice(uint32_t id, std::string_view name, std::string_view uuid = {});
  bool hasDevice(uint32_t id) const;
  void setDeviceMemory(uint32_t id, uint64_t bytes);  // adds the device if new

  // The job's device memory after a change; kBytesUnknown for what the source does not record.
  void addMemoryUsage(TimeNs ts, uint32_t device, int64_t allocated, int64_t reserved);

  // Room for `n` more ranges, where an importer knows how many it will add.
  void reserveRanges(size_t n);
  void addRange(TimeNs start, TimeNs end, ThreadIndex thread, StringId domain, StringId name,
                RangeKind kind = RangeKind::PushPop);
  void addMark(TimeNs ts, ThreadIndex thread, StringId domain, StringId name);
  void addKernel(TimeNs start, TimeNs end, StreamIndex stream, StringId name, uint32_t corr);
  void addMemcpy(TimeNs start, TimeNs end, StreamIndex stream, uint32_t corr, uint64_t bytes,
                 MemcpyKind kind);
  void addMemset(TimeNs start, TimeNs end, StreamIndex stream, uint32_t corr, uint64_t bytes);
  void addSync(TimeNs start, TimeNs end, StreamIndex stream, uint32_t corr, SyncKind kind);
  void addApiCall(TimeNs start, TimeNs end, ThreadIndex thread, StringId name, uint32_t corr);

  // Adds `offset` to every time (relative times to the epoch), sets each range's depth (nesting
  // on its thread and domain), sorts the tables, and hands the trace over.
  RankTrace finish(TimeNs offset);

 private:
  RankTrace trace_;
  std::unordered_map<uint64_t, ThreadIndex> threads_;
  std::unordered_map<uint64_t, StreamIndex> streams_;  // (device << 40) ^ stream
};

// Nesting depth of each range within its (thread, domain): 0 = outermost.
void computeRangeDepths(NvtxRanges& ranges);

// The first and last time of any event, {0, 0} for an empty trace.
Interval traceSpan(const RankTrace& trace);

}  // namespace bubblescope::traces::import
