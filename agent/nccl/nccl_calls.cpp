#include "agent/nccl/nccl_calls.h"

#include <unistd.h>

#include <atomic>
#include <cstring>
#include <map>
#include <unordered_map>

#include "agent/core/record_sink.h"

namespace bubblescope::agent {

NcclRecordTypes g_ncclTypes;

namespace {

using traces::NcclOp;

std::atomic<uint64_t> g_nextId{1};
std::atomic<uint64_t> g_nextBlock{1};
thread_local NcclThread t_nccl;

// Writer side, NVTX route: what NCCL's CommInitRank/CommSplit payloads said of each
// communicator, and sequence numbers counted per (communicator hash, class). Per process.
struct NvtxRouteState {
  std::unordered_map<uint64_t, std::pair<int32_t, int32_t>> ranks;  // hash -> (rank, size)
  std::map<std::pair<uint64_t, int>, uint64_t> seq;
};
NvtxRouteState& nvtxRoute() {
  static auto* s = new NvtxRouteState;
  return *s;
}

template <class T>
T field(const NcclNvtxPayload& p, size_t offset) {
  T v{};
  if (offset + sizeof(T) <= p.rawSize)
    std::memcpy(&v, reinterpret_cast<const char*>(p.raw) + offset, sizeof(T));
  return v;
}

void decodeCall(RecordSink& sink, const RecordView& view) {
  const auto& p = view.as<NcclCallPayload>();
  traces::NcclCallRecord r;
  r.fields() = p;
  r.id = p.id;
  r.start = sink.toNs(p.start);
  r.end = sink.toNs(p.end);
  r.tid = view.tid;
  r.stream = p.stream;
  r.source = traces::NcclSource::Hook;
  sink.trace().add(r);
}

// The layouts of nvtx_payload_schemas.h (NCCL 2.28): every struct starts with the
// communicator's hash; the rest by API.
void decodeNvtx(RecordSink& sink, const RecordView& view) {
  const auto& p = view.as<NcclNvtxPayload>();
  traces::NcclCallRecord r;
  r.id = p.id;
  r.start = sink.toNs(p.start);
  r.end = sink.toNs(p.end);
  r.tid = view.tid;
  r.op = static_cast<NcclOp>(p.op);
  r.dtype = kUnknownDtype;
  r.groupDepth = p.groupDepth;
  r.source = traces::NcclSource::Nvtx;
  r.comm = field<uint64_t>(p, 0);
  switch (r.op) {
    case NcclOp::CommInitRank:
    case NcclOp::CommDestroy:  // {comm, nranks, myrank, cudaDev}
      if (p.rawSize >= 16) {
        r.commSize = field<int32_t>(p, 8);
        r.commRank = field<int32_t>(p, 12);
        if (r.op == NcclOp::CommInitRank) nvtxRoute().ranks[r.comm] = {r.commRank, r.commSize};
      }
      break;
    case NcclOp::CommSplit:  // {newcomm, parentcomm, nranks, myrank, cudaDev, color, key}
      if (p.rawSize >= 24) {
        r.commSize = field<int32_t>(p, 16);
        r.commRank = field<int32_t>(p, 20);
        nvtxRoute().ranks[r.comm] = {r.commRank, r.commSize};
      }
      break;
    case NcclOp::GroupEnd:
      r.count = p.groupCount;
      r.comm = 0;
      break;
    default:
      if (traces::carriesPeer(r.op)) {  // {comm, bytes, peer or root, ...}
        r.bytes = field<uint64_t>(p, 8);
        r.peer = p.rawSize >= 20 ? field<int32_t>(p, 16) : -1;
      } else if (traces::isCollective(r.op)) {  // {comm, bytes, ...}
        r.bytes = field<uint64_t>(p, 8);
      } else {
        r.comm = 0;
      }
      break;
  }
  if (r.commSize < 0 && r.comm != 0) {
    if (auto it = nvtxRoute().ranks.find(r.comm); it != nvtxRoute().ranks.end()) {
      r.commRank = it->second.first;
      r.commSize = it->second.second;
    }
  }
  if (const int c = seqClassOf(r.op); c >= 0 && r.comm != 0) r.seq = ++nvtxRoute().seq[{r.comm, c}];
  sink.trace().add(r);
}

}  // namespace

void registerNcclRecords() {
  if (g_ncclTypes.call != 0) return;
  g_ncclTypes.call = registerRecordType("nccl.call", &decodeCall);
  g_ncclTypes.nvtx = registerRecordType("nccl.nvtx", &decodeNvtx);
}

NcclThread& ncclThread() {
  return t_nccl;
}

uint64_t osThreadId(NcclThread& t) {
  if (t.tid == 0) t.tid = static_cast<uint64_t>(gettid());
  return t.tid;
}

uint64_t nextCallId(NcclThread& t) {
  if (t.groupBlock != 0 && t.groupNext + 1 < kGroupStartIndex) {
    return t.groupBlock + ++t.groupNext;
  }
  return g_nextId.fetch_add(1, std::memory_order_relaxed);
}

uint64_t openGroup(NcclThread& t) {
  uint64_t id;
  if (t.groupDepth == 0) {
    t.groupBlock = kGroupIdBit | (g_nextBlock.fetch_add(1, std::memory_order_relaxed)
                                  << traces::kNcclGroupBlockShift);
    t.groupNext = 0;
    id = t.groupBlock | kGroupStartIndex;
  } else {
    id = nextCallId(t);
  }
  ++t.groupDepth;
  return id;
}

uint64_t groupEndId(NcclThread& t) {
  if (t.groupDepth == 1 && t.groupBlock != 0) return t.groupBlock;
  return t.groupDepth == 0 ? g_nextId.fetch_add(1, std::memory_order_relaxed) : nextCallId(t);
}

void closeGroup(NcclThread& t) {
  if (t.groupDepth == 0) return;  // an unmatched ncclGroupEnd: NCCL reports it
  if (--t.groupDepth == 0) {
    t.groupBlock = 0;
    t.groupNext = 0;
  }
}

uint32_t ncclTypeSize(int dtype) {
  // ncclInt8, Uint8, Int32, Uint32, Int64, Uint64, Float16, Float32, Float64, Bfloat16,
  // Float8e4m3, Float8e5m2.
  static constexpr uint8_t kSizes[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};
  return dtype >= 0 && dtype < static_cast<int>(sizeof kSizes) ? kSizes[dtype] : 0;
}

int seqClassOf(NcclOp op) {
  if (traces::isCollective(op)) return 0;
  return op == NcclOp::Send ? 1 : op == NcclOp::Recv ? 2 : -1;
}

}  // namespace bubblescope::agent
