#include "agent/nccl/nccl_nvtx.h"

#include <cstdint>
#include <cstring>

#include "agent/core/clock.h"
#include "agent/core/producer.h"
#include "agent/cupti/cuda_capture.h"
#include "agent/nccl/nccl_calls.h"
#include "agent/nccl/recent_calls.h"

namespace bubblescope::agent {
namespace {

using traces::NcclOp;

// NCCL API ranges nest at most a few deep (ncclGroupEnd inside nothing, a collective inside a
// group call at most); deeper pushes are paired but not recorded.
constexpr uint32_t kMaxDepth = 16;

struct OpenCall {
  uint64_t id;
  uint64_t start;
  uint64_t raw[6];
  uint32_t rawSize;
  uint32_t groupCount;
  NcclOp op;
  uint8_t groupDepth;
  bool recording;
  bool correlated;  // an external id was pushed to CUPTI
  uint64_t noted;   // its entry in the live history (recent_calls.h), 0 = none
};

struct OpenCalls {
  uint32_t depth = 0;
  uint32_t overflow = 0;
  OpenCall calls[kMaxDepth];
};
thread_local OpenCalls t_open;

void copyPayload(OpenCall& c, const nvtxPayloadData_t* data, size_t count) {
  if (data == nullptr || count == 0 || data[0].payload == nullptr) return;
  const size_t size = data[0].size < sizeof c.raw ? data[0].size : sizeof c.raw;
  std::memcpy(c.raw, data[0].payload, size);
  c.rawSize = static_cast<uint32_t>(size);
}

template <class T>
T field(const OpenCall& c, size_t offset) {
  T v{};
  if (offset + sizeof(T) <= c.rawSize) {
    std::memcpy(&v, reinterpret_cast<const char*>(c.raw) + offset, sizeof(T));
  }
  return v;
}

// The call as the live `hang` query's history keeps it, from NCCL's payload (the layouts
// nccl_calls.cpp decodes: every struct starts with the communicator's hash, then bytes, then the
// peer or root).
uint64_t noteInHistory(const OpenCall& c, NcclThread& t) {
  const int cls = seqClassOf(c.op);
  if (cls < 0 || c.rawSize < 16) return 0;
  RecentCall rc;
  rc.startTicks = c.start;
  rc.tid = osThreadId(t);
  rc.op = c.op;
  rc.comm = field<uint64_t>(c, 0);
  rc.bytes = field<uint64_t>(c, 8);
  rc.dtype = kUnknownDtype;
  rc.peer = traces::carriesPeer(c.op) && c.rawSize >= 20 ? field<int32_t>(c, 16) : -1;
  return noteCallStart(rc, 0);
}

void open(NcclOp op, const nvtxPayloadData_t* data, size_t count) {
  NcclThread& t = ncclThread();
  if (t.inHook != 0) return;  // the hook records this call
  OpenCalls& s = t_open;
  if (s.depth >= kMaxDepth || s.overflow != 0) {
    ++s.overflow;
    return;
  }
  OpenCall& c = s.calls[s.depth++];
  c.op = op;
  c.rawSize = 0;
  c.groupCount = 0;
  c.correlated = false;
  c.noted = 0;
  c.recording = op != NcclOp::Unknown && recordingNow();
  if (op == NcclOp::Unknown) return;
  if (op == NcclOp::GroupStart) {
    c.id = openGroup(t);
  } else if (op == NcclOp::GroupEnd) {
    c.groupCount = t.groupDepth == 1 ? t.groupNext : 0;
    c.id = groupEndId(t);
  } else {
    c.id = nextCallId(t);
  }
  c.groupDepth = static_cast<uint8_t>(t.groupDepth);
  copyPayload(c, data, count);
  if (op != NcclOp::GroupStart && cudaTracing()) {
    pushCudaExternalId(ExternalIdKind::NcclCall, c.id);
    c.correlated = true;
  }
  c.start = nowTicks();
  c.noted = noteInHistory(c, t);  // dormant too: a live `hang` query reads it
}

}  // namespace

void ncclNvtxPush(NcclOp op, const nvtxEventAttributes_t* a) {
  const nvtxPayloadData_t* data = nullptr;
  size_t count = 0;
  constexpr size_t kNeeded = offsetof(nvtxEventAttributes_t, reserved0) + sizeof(a->reserved0);
  if (a != nullptr && a->size >= kNeeded && a->payloadType == NVTX_PAYLOAD_TYPE_EXT) {
    data = reinterpret_cast<const nvtxPayloadData_t*>(a->payload.ullValue);
    count = static_cast<size_t>(a->reserved0);
  }
  open(op, data, count);
}

void ncclNvtxPushPayload(const nvtxPayloadData_t* data, size_t count) {
  open(NcclOp::Unknown, data, count);  // no name: paired, not recorded
}

void ncclNvtxPop(const nvtxPayloadData_t* data, size_t count) {
  NcclThread& t = ncclThread();
  if (t.inHook != 0) return;
  OpenCalls& s = t_open;
  if (s.overflow != 0) {
    --s.overflow;
    return;
  }
  if (s.depth == 0) return;  // pushed before the agent saw NCCL's domain
  OpenCall& c = s.calls[--s.depth];
  if (c.op == NcclOp::Unknown) return;
  const uint64_t end = nowTicks();
  if (c.correlated) popCudaExternalId(ExternalIdKind::NcclCall);
  if (c.op == NcclOp::GroupEnd) closeGroup(t);
  copyPayload(c, data, count);  // ncclCommInitRank gives its payload when it pops
  if (c.noted != 0) noteCallEnd(c.noted, end, field<uint64_t>(c, 8));  // a receive's bytes come now
  if (c.op == NcclOp::CommInitRank && c.rawSize >= 16) {  // {comm, nranks, myrank, cudaDev}
    noteMembership(field<uint64_t>(c, 0), field<int32_t>(c, 12), field<int32_t>(c, 8));
  } else if (c.op == NcclOp::CommSplit && c.rawSize >= 24) {  // {newcomm, parent, nranks, myrank}
    noteMembership(field<uint64_t>(c, 0), field<int32_t>(c, 20), field<int32_t>(c, 16));
  }
  if (!c.recording) return;
  NcclNvtxPayload p = {};
  p.id = c.id;
  p.start = c.start;
  p.end = end;
  std::memcpy(p.raw, c.raw, c.rawSize);
  p.rawSize = c.rawSize;
  p.groupCount = c.groupCount;
  p.op = static_cast<uint8_t>(c.op);
  p.groupDepth = c.groupDepth;
  append(Source::Nccl, g_ncclTypes.nvtx, p);
}

}  // namespace bubblescope::agent
