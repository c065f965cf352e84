#pragma once
// The writer side of the producer API: what a decoder gets to turn one record into trace rows.
// Lives on the writer thread only; one per trace file.
#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "agent/core/clock.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::agent {

class RecordSink {
 public:
  RecordSink(traces::TraceWriter& trace, const TickConverter& clock)
      : trace_(&trace), clock_(&clock) {}

  traces::TraceWriter& trace() { return *trace_; }
  const traces::TraceWriter& trace() const { return *trace_; }
  // A record's tick timestamp as CLOCK_REALTIME ns.
  int64_t toNs(uint64_t ticks) const { return clock_->toNs(ticks); }
  traces::StringId intern(std::string_view s) { return trace_->intern(s); }
  // Interns the text of an immutable producer handle (an NVTX domain or registered string)
  // once per file: later records with the same handle cost one hash lookup on the pointer.
  traces::StringId internHandle(const void* handle, std::string_view text) {
    auto [it, added] = handles_.try_emplace(handle, 0);
    if (added) it->second = trace_->intern(text);
    return it->second;
  }

 private:
  traces::TraceWriter* trace_;
  const TickConverter* clock_;
  std::unordered_map<const void*, traces::StringId> handles_;
};

}  // namespace bubblescope::agent
