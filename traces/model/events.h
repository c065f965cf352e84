#pragma once
// Event tables of one rank's trace, column by column (struct of arrays), each sorted by start.
// Columns keep memory per event small (about 30 bytes for a kernel or an NVTX range) and let the
// analyzer and viewer scan one field without touching the others.
#include <cstdint>
#include <vector>

#include "traces/model/nccl_call.h"
#include "traces/model/string_table.h"
#include "traces/model/time.h"

namespace bubblescope::traces {

// Index into RankTrace::threads / RankTrace::streams.
using ThreadIndex = uint32_t;
using StreamIndex = uint32_t;
inline constexpr StreamIndex kNoStream = UINT32_MAX;

enum class RangeKind : uint8_t { PushPop = 0, StartEnd = 1 };

struct NvtxRanges {
  std::vector<TimeNs> start, end;
  std::vector<ThreadIndex> thread;  // the thread that opened the range
  std::vector<StringId> domain;     // "" = NVTX default domain
  std::vector<StringId> name;
  std::vector<uint16_t> depth;  // push/pop nesting on its thread, 0 = outermost; start/end: 0
  std::vector<RangeKind> kind;

  size_t size() const { return start.size(); }
  template <class F>
  void forEachColumn(F&& f) {
    f(start), f(end), f(thread), f(domain), f(name), f(depth), f(kind);
  }
};

// Ranges still open when the trace was last committed (a rank stopped inside them: hung, killed,
// or exiting mid-range). No end; at most one snapshot per rank, so small.
struct OpenRanges {
  std::vector<TimeNs> start;
  std::vector<ThreadIndex> thread;
  std::vector<StringId> domain;
  std::vector<StringId> name;
  std::vector<uint16_t> depth;
  std::vector<RangeKind> kind;

  size_t size() const { return start.size(); }
  template <class F>
  void forEachColumn(F&& f) {
    f(start), f(thread), f(domain), f(name), f(depth), f(kind);
  }
};

struct NvtxMarks {
  std::vector<TimeNs> start;  // "start" so marks sort like every other table
  std::vector<ThreadIndex> thread;
  std::vector<StringId> domain;
  std::vector<StringId> name;

  size_t size() const { return start.size(); }
  template <class F>
  void forEachColumn(F&& f) {
    f(start), f(thread), f(domain), f(name);
  }
};

struct Kernels {
  std::vector<TimeNs> start, end;
  std::vector<StreamIndex> stream;    // the stream also names the device
  std::vector<StringId> name;         // demangled
  std::vector<uint32_t> correlation;  // CUDA correlation id (0 = none), joins ApiCalls

  size_t size() const { return start.size(); }
  template <class F>
  void forEachColumn(F&& f) {
    f(start), f(end), f(stream), f(name), f(correlation);
  }
};

// Values follow CUpti_ActivityMemcpyKind so CUPTI and nsys records map one to one.
enum class MemcpyKind : uint8_t {
  Unknown = 0,
  HostToDevice = 1,
  DeviceToHost = 2,
  HostToArray = 3,
  ArrayToHost = 4,
  ArrayToArray = 5,
  ArrayToDevice = 6,
  DeviceToArray = 7,
  DeviceToDevice = 8,
  HostToHost = 9,
  PeerToPeer = 10,
};

// A copy's direction as CUPTI and Nsight Systems abbreviate it ("HtoD"); the array kinds are
// "array"; `unknown` for a copy whose kind the trace does not say.
constexpr const char* memcpyDirection(MemcpyKind kind, const char* unknown) {
  switch (kind) {
    case MemcpyKind::HostToDevice:
      return "HtoD";
    case MemcpyKind::DeviceToHost:
      return "DtoH";
    case MemcpyKind::DeviceToDevice:
      return "DtoD";
    case MemcpyKind::PeerToPeer:
      return "PtoP";
    case MemcpyKind::HostToHost:
      return "HtoH";
    case MemcpyKind::HostToArray:
    case MemcpyKind::ArrayToHost:
    case MemcpyKind::ArrayToArray:
    case MemcpyKind::ArrayToDevice:
    case MemcpyKind::DeviceToArray:
      return "array";
    case MemcpyKind::Unknown:
      break;
  }
  return unknown;
}

struct Memcpys {
  std::vector<TimeNs> start, end;
  std::vector<StreamIndex> stream;
  std::vector<uint32_t> correlation;
  std::vector<uint64_t> bytes;
  std::vector<MemcpyKind> copyKind;

  size_t size() const { return start.size(); }
  template <class F>
  void forEachColumn(F&& f) {
    f(start), f(end), f(stream), f(correlation), f(bytes), f(copyKind);
  }
};

struct Memsets {
  std::vector<TimeNs> start, end;
  std::vector<StreamIndex> stream;
  std::vector<uint32_t> correlation;
  std::vector<uint64_t> bytes;

  size_t size() const { return start.size(); }
  template <class F>
  void forEachColumn(F&& f) {
    f(start), f(end), f(stream), f(correlation), f(bytes);
  }
};

// Values follow CUpti_ActivitySynchronizationType.
enum class SyncKind : uint8_t {
  Unknown = 0,
  EventSynchronize = 1,
  StreamWaitEvent = 2,
  StreamSynchronize = 3,
  ContextSynchronize = 4,
};

struct Syncs {
  std::vector<TimeNs> start, end;
  std::vector<StreamIndex> stream;  // kNoStream for context-wide syncs
  std::vector<uint32_t> correlation;
  std::vector<SyncKind> syncKind;

  size_t size() const { return start.size(); }
  template <class F>
  void forEachColumn(F&& f) {
    f(start), f(end), f(stream), f(correlation), f(syncKind);
  }
};

// CUDA runtime and driver API calls (launches, copies, syncs).
struct ApiCalls {
  std::vector<TimeNs> start, end;
  std::vector<ThreadIndex> thread;
  std::vector<StringId> name;  // e.g. "cudaLaunchKernel"
  std::vector<uint32_t> correlation;

  size_t size() const { return start.size(); }
  template <class F>
  void forEachColumn(F&& f) {
    f(start), f(end), f(thread), f(name), f(correlation);
  }
};

// One NCCL call, for code that builds the table a call at a time (importers, the live query):
// NcclCalls::push fills every column, so none is forgotten.
struct NcclCall : NcclCallFields {
  TimeNs start = 0, end = 0;
  ThreadIndex thread = 0;
  uint64_t streamHandle = 0;
  uint64_t id = 0;
  NcclSource source = NcclSource::Hook;
};

// NCCL host calls, from the interposed API, NCCL's own NVTX ranges, or an importer.
struct NcclCalls {
  std::vector<TimeNs> start, end;
  std::vector<ThreadIndex> thread;
  std::vector<NcclOp> op;
  std::vector<int32_t> peer;  // send/recv peer, root for rooted collectives; -1 if none
  std::vector<uint64_t> count;
  std::vector<uint8_t> dtype;  // ncclDataType_t
  std::vector<uint64_t> bytes;
  std::vector<uint64_t> comm;  // communicator hash
  std::vector<int32_t> commRank, commSize;
  std::vector<uint64_t> streamHandle;  // the cudaStream_t passed in (not a CUPTI stream id)
  std::vector<uint8_t> groupDepth;     // ncclGroupStart nesting at the call, 0 = none
  std::vector<uint64_t> seq;           // per (comm, op class) sequence number, 0 = unknown
  std::vector<uint64_t> id;            // external correlation id: ties the call to its kernels
  std::vector<NcclSource> source;

  size_t size() const { return start.size(); }
  template <class F>
  void forEachColumn(F&& f) {
    f(start), f(end), f(thread), f(op), f(peer), f(count), f(dtype), f(bytes), f(comm), f(commRank),
        f(commSize), f(streamHandle), f(groupDepth), f(seq), f(id), f(source);
  }
  void push(const NcclCall& c) {
    start.push_back(c.start), end.push_back(c.end), thread.push_back(c.thread), op.push_back(c.op);
    peer.push_back(c.peer), count.push_back(c.count), dtype.push_back(c.dtype);
    bytes.push_back(c.bytes), comm.push_back(c.comm), commRank.push_back(c.commRank);
    commSize.push_back(c.commSize), streamHandle.push_back(c.streamHandle);
    groupDepth.push_back(c.groupDepth), seq.push_back(c.seq), id.push_back(c.id);
    source.push_back(c.source);
  }
  // Row i's fields, as the call's other shapes hold them.
  NcclCallFields fieldsAt(size_t i) const {
    NcclCallFields f;
    f.comm = comm[i], f.count = count[i], f.bytes = bytes[i], f.seq = seq[i], f.peer = peer[i];
    f.commRank = commRank[i], f.commSize = commSize[i], f.op = op[i], f.dtype = dtype[i];
    f.groupDepth = groupDepth[i];
    return f;
  }
};

// The device memory the job holds, sampled at each change (an allocation or a release), by device.
// Kineto's [memory] events carry both amounts; CUDA-level sources (Nsight Systems, CUPTI) see
// cudaMalloc/cudaFree only, which is the caching allocator's reserve, so their `allocated` is
// unknown.
inline constexpr int64_t kBytesUnknown = -1;

struct MemoryUsage {
  std::vector<TimeNs> start;       // when the amounts changed ("start" so it sorts like the rest)
  std::vector<uint32_t> device;    // CUDA ordinal
  std::vector<int64_t> allocated;  // bytes in live tensors; kBytesUnknown when not recorded
  std::vector<int64_t> reserved;   // bytes the job holds from the device; kBytesUnknown likewise

  size_t size() const { return start.size(); }
  template <class F>
  void forEachColumn(F&& f) {
    f(start), f(device), f(allocated), f(reserved);
  }
};

enum class ExternalKind : uint8_t { Unknown = 0, NcclCall = 1, NvtxRange = 2, Other = 3 };

// CUDA correlation id -> external id (which NCCL call or NVTX range launched the work).
struct Correlations {
  std::vector<uint32_t> correlation;  // sorted
  std::vector<ExternalKind> externalKind;
  std::vector<uint64_t> externalId;

  size_t size() const { return correlation.size(); }
  template <class F>
  void forEachColumn(F&& f) {
    f(correlation), f(externalKind), f(externalId);
  }
};

}  // namespace bubblescope::traces
