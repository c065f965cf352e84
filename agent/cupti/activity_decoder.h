#pragma once
// Turns CUPTI activity records into trace rows (writer thread): kernels, copies, sets,
// synchronisations, runtime and driver calls, external correlations, devices (with their total
// memory), and device memory allocations and releases (MEMORY2) as the process's reserved bytes
// per device after each; overhead records are summed. Records outside the capture windows are
// discarded here: CUPTI traces from start-up (see docs/agent.md, "CUDA"), the windows decide what
// is kept. Pure apart from the writer it is given, so tests feed it hand-built records of the CUDA
// 13 structs.
#include <cupti.h>

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "agent/cupti/api_names.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::agent {

// A capture window as the decoder sees it: [start, end], end = INT64_MAX while open.
struct TimeSpan {
  int64_t start = 0;
  int64_t end = INT64_MAX;
};

struct ActivityCounts {
  uint64_t records = 0;        // seen
  uint64_t written = 0;        // became rows
  uint64_t outsideWindow = 0;  // discarded: no capture window held their start
  uint64_t incomplete = 0;     // discarded: no timestamps (a forced flush of unfinished work)
  uint64_t filtered = 0;       // discarded: noisy API calls
  uint64_t otherKinds = 0;     // kinds the trace has no table for
};

class ActivityDecoder {
 public:
  explicit ActivityDecoder(const ApiNames* names) : names_(names) {}

  // A new trace file: string ids, devices and streams written so far are forgotten.
  void beginFile();
  void setWindows(std::vector<TimeSpan> windows) { windows_ = std::move(windows); }
  // Added to every CUPTI timestamp: CLOCK_REALTIME − CUPTI clock (0 where they are one clock).
  void setClockOffset(int64_t ns) { offsetNs_ = ns; }

  void decode(const CUpti_Activity& record, traces::TraceWriter& out);

  const ActivityCounts& counts() const { return counts_; }
  // Summed CUPTI overhead by kind ("buffer_flush", "instrumentation", ...): count and ns.
  const std::map<std::string, std::pair<uint64_t, int64_t>>& overhead() const { return overhead_; }

 private:
  // Whether an activity with these CUPTI times is written; counts it as incomplete (no
  // timestamps) or outside the capture windows when not.
  bool admitted(uint64_t start, uint64_t end);
  int64_t ns(uint64_t cuptiTime) const { return static_cast<int64_t>(cuptiTime) + offsetNs_; }
  void noteStream(uint32_t device, uint32_t stream, traces::TraceWriter& out);
  uint32_t deviceOfContext(uint32_t context) const;
  traces::StringId kernelName(const char* name, traces::TraceWriter& out);
  traces::StringId apiName(traces::ApiDomain domain, uint32_t cbid, traces::TraceWriter& out);

  void onKernel(const CUpti_ActivityKernel10& k, traces::TraceWriter& out);
  // A copy within a device or between two: the same fields under two record types.
  template <class Copy>
  void onCopy(const Copy& m, traces::TraceWriter& out);
  void onMemset(const CUpti_ActivityMemset4& m, traces::TraceWriter& out);
  void onSync(const CUpti_ActivitySynchronization2& s, traces::TraceWriter& out);
  void onApi(const CUpti_ActivityAPI& a, traces::ApiDomain domain, traces::TraceWriter& out);
  void onExternalCorrelation(const CUpti_ActivityExternalCorrelation& c);
  void onDevice(const CUpti_ActivityDevice5& d, traces::TraceWriter& out);
  void onMemory(const CUpti_ActivityMemory4& m, traces::TraceWriter& out);
  void onOverhead(const CUpti_ActivityOverhead3& o);

  const ApiNames* names_;
  std::vector<TimeSpan> windows_;
  int64_t offsetNs_ = 0;
  ActivityCounts counts_;
  std::map<std::string, std::pair<uint64_t, int64_t>> overhead_;
  std::unordered_map<uint32_t, uint32_t> contextDevice_;  // CUPTI context id -> device
  // Device memory the process holds, by device: allocations less releases since CUPTI began
  // tracing (at start-up), so the sum is right inside a capture window that opens later.
  std::unordered_map<uint32_t, int64_t> reserved_;
  // External correlations arrive just before the API record they belong to, and are written
  // with it (or dropped with it). Bounded: a few kinds per call.
  std::vector<CUpti_ActivityExternalCorrelation> pendingExternal_;
  // Per file.
  std::unordered_map<const char*, traces::StringId> kernelNames_;  // CUPTI's name pointers
  std::unordered_map<uint64_t, traces::StringId> apiNames_;        // (domain << 32) | cbid
  std::unordered_set<uint64_t> streams_;                           // (device << 32) | stream
  std::unordered_set<uint32_t> devices_;
};

// "GPU-12345678-9abc-def0-1234-56789abcdef0", as nvidia-smi shows a device UUID.
std::string formatUuid(const CUuuid& uuid);
// The demangled name of a kernel, or the name itself when it is not a mangled C++ name.
std::string demangleKernelName(const char* name);

}  // namespace bubblescope::agent
