#include "agent/nvtx/open_range_rows.h"

#include <algorithm>
#include <tuple>

#include "agent/core/clock.h"
#include "agent/core/open_ranges.h"
#include "agent/core/recorder.h"
#include "agent/nvtx/nvtx_registry.h"

namespace bubblescope::agent {
namespace {

// How often meta.alive_ns is refreshed while nothing changes (a hung rank). Each refresh rewrites
// a page of the file, so not every 20 ms cycle.
constexpr int64_t kAliveEveryNs = 500'000'000;

// Writer thread only; leaked (the writer may run while exit() destroys statics).
struct SnapshotState {
  std::vector<traces::OpenRangeRecord> written;
  std::vector<OpenRangeCopy> copies;
  uint32_t generation = 0;
  bool recorded = false;  // a window has been open in this file
  int64_t aliveWrittenNs = 0;
};
SnapshotState& state() {
  static auto* s = new SnapshotState;
  return *s;
}

auto key(const traces::OpenRangeRecord& r) {
  return std::tuple(r.tid, r.start, r.depth, r.domain, r.name, r.kind);
}

}  // namespace

void writeOpenRanges(RecordSink& sink, std::vector<traces::OpenRangeRecord> rows, bool closing) {
  SnapshotState& st = state();
  const uint32_t word = controlWord();
  if (isRecording(word)) {
    st.generation = generationOf(word);
    st.recorded = true;
  }
  if (isRecording(word) || (closing && st.recorded)) {
    st.copies.clear();
    copyOpenRanges(st.generation, st.copies);
    for (const OpenRangeCopy& c : st.copies) {
      const OpenRange& e = c.range;
      const auto* domain = static_cast<const NvtxDomain*>(e.domain);
      const auto* registered = static_cast<const NvtxString*>(e.registered);
      traces::OpenRangeRecord r;
      r.start = sink.toNs(e.startTicks);
      r.tid = c.tid;
      r.domain = domain == nullptr ? 0 : sink.internHandle(domain, domain->name);
      r.name = registered != nullptr
                   ? sink.internHandle(registered, registered->text)
                   : sink.intern(std::string_view(
                         e.text, std::min<uint32_t>(e.textSize, kMaxMessageBytes)));
      r.depth = static_cast<uint16_t>(c.depth);
      r.kind = traces::RangeKind::PushPop;
      rows.push_back(r);
    }
  } else {
    rows.clear();  // no window open: as far as the trace goes, nothing is running
  }
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return key(a) < key(b); });
  const bool same = std::equal(rows.begin(), rows.end(), st.written.begin(), st.written.end(),
                               [](const auto& a, const auto& b) { return key(a) == key(b); });
  if (!same) {
    sink.trace().replaceOpenRanges(rows);
    st.written = std::move(rows);
  }
  const int64_t now = realtimeNs();
  // Also with every change: the batch rewrites a page anyway, and a rank that dies (its last
  // flush) then tells when to the millisecond, which is what sets it apart from the peers that
  // outlived it.
  if (closing || !same || now - st.aliveWrittenNs >= kAliveEveryNs) {
    sink.trace().setAliveNs(now);
    st.aliveWrittenNs = now;
  }
}

void forgetOpenRanges() {
  SnapshotState& st = state();
  st.written.clear();
  st.recorded = false;
  st.aliveWrittenNs = 0;
}

}  // namespace bubblescope::agent
