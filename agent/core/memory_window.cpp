#include "agent/core/memory_window.h"

#include <cstdio>
#include <utility>

#include "traces/errors.h"

namespace bubblescope::agent {
namespace {

std::string mebibytes(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

}  // namespace

std::unique_ptr<traces::TraceWriter> makeMemoryTrace(traces::RankMeta meta, int64_t startNs) {
  meta.startNs = startNs;
  meta.captureWindows.clear();
  meta.clockAnchors.clear();
  return traces::TraceWriter::inMemory(meta, "the memory window's trace");
}

void MemoryPruning::afterCommit(traces::TraceWriter& trace, int64_t nowNs, int64_t keepNs) {
  if (nowNs - lastNs_ < kEveryNs) return;
  lastNs_ = nowNs;
  cutoffNs_ = nowNs - keepNs;
  trace.pruneBefore(cutoffNs_);
}

MemorySnapshot imageOf(traces::TraceWriter& trace, uint64_t maxBytes) {
  MemorySnapshot s;
  try {
    const uint64_t bytes = trace.imageBytes();
    if (bytes > maxBytes) {
      s.error = "the memory window's trace is " + mebibytes(bytes) +
                ", more than a snapshot may be (" + mebibytes(maxBytes) +
                "): watch with a smaller keep";
      return s;
    }
    s.image = trace.image();
    s.ok = true;
  } catch (const traces::TraceError& e) {
    s.error = e.what();
  } catch (const std::bad_alloc&) {
    s.error = "no memory for the snapshot's image";
  }
  return s;
}

}  // namespace bubblescope::agent
