// A test double standing in for libnccl.so.2 (same soname, the API of the CUDA toolkit's
// nccl.h), so the agent's NCCL hooks can be tested on a machine without a GPU. Communicators are
// host objects, collectives copy host buffers, results follow NCCL's rules for bad arguments.
// With FAKE_NCCL_NVTX=1 every call also opens an NVTX range in domain "NCCL" named by a
// registered string and carrying a payload laid out as NCCL 2.28 lays it out
// (nvtx_payload_schemas.h), closed by nvtxDomainRangePop or, for ncclCommInitRank, by
// nvtxRangePopPayload: the agent's second route to NCCL calls. A program that stands in for the
// GPU learns where NCCL launches its kernels through fakeNcclSetLaunchHook (fake_nccl.h).
#include "tests/agent/fake_nccl.h"

#include <nccl.h>
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtPayload.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

struct ncclComm {
  int nranks;
  int rank;
  uint64_t hash;  // what the fake puts in its NVTX payloads
  int splits;
};

namespace {

std::atomic<uint64_t> g_calls{0};  // calls that reached this library
thread_local int t_groupDepth = 0;

std::atomic<FakeNcclLaunchHook> g_launchHook{nullptr};
std::atomic<void*> g_launchContext{nullptr};
// The open group's kernel: the first call's, launched at the outermost ncclGroupEnd.
thread_local const char* t_groupKernel = nullptr;
thread_local cudaStream_t t_groupStream = nullptr;

// Kernel names as NCCL 2.2x gives them (one per op here, whatever the type and algorithm).
constexpr const char* kSendRecvKernel = "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)";
constexpr const char* kAllReduceKernel =
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
constexpr const char* kAllGatherKernel =
    "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
constexpr const char* kReduceScatterKernel =
    "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
constexpr const char* kBroadcastKernel =
    "ncclDevKernel_Broadcast_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
constexpr const char* kReduceKernel =
    "ncclDevKernel_Reduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";

void runLaunchHook(const char* kernel, cudaStream_t stream) {
  if (FakeNcclLaunchHook hook = g_launchHook.load()) hook(g_launchContext.load(), kernel, stream);
}

// A successful communication call's kernel: launched now outside a group; inside one, the
// group's single fused kernel is launched when the group ends.
ncclResult_t launched(ncclResult_t result, const char* kernel, cudaStream_t stream) {
  if (result != ncclSuccess) return result;
  if (t_groupDepth == 0) {
    runLaunchHook(kernel, stream);
  } else if (t_groupKernel == nullptr) {
    t_groupKernel = kernel;
    t_groupStream = stream;
  }
  return result;
}

// Payload layouts of NCCL 2.28's schemas: every struct starts with the communicator hash.
struct SendRecvPayload {
  uint64_t comm;
  size_t bytes;
  int peer;
};
struct CollectivePayload {
  uint64_t comm;
  size_t bytes;
  int op;
};
struct RootedPayload {
  uint64_t comm;
  size_t bytes;
  int root;
  int op;
};
struct InitPayload {
  uint64_t comm;
  int nranks, myrank, cudaDev;
};
struct SplitPayload {
  uint64_t newcomm, parentcomm;
  int nranks, myrank, cudaDev, color, key;
};

// Static schema ids as NCCL numbers them (nvtx.h: NVTX_SID_*).
constexpr uint64_t kSchemaBase = NVTX_PAYLOAD_SCHEMA_ID_STATIC_START;
enum : uint64_t {
  kSidInit = 0,
  kSidAllGather = 4,
  kSidAllReduce = 5,
  kSidBroadcast = 6,
  kSidReduceScatter = 7,
  kSidReduce = 8,
  kSidSend = 9,
  kSidRecv = 10
};

bool nvtxOn() {
  static const bool on = [] {
    const char* v = std::getenv("FAKE_NCCL_NVTX");
    return v != nullptr && std::strcmp(v, "1") == 0;
  }();
  return on;
}

nvtxDomainHandle_t domain() {
  static nvtxDomainHandle_t d = nvtxDomainCreateA("NCCL");
  return d;
}

nvtxStringHandle_t nameOf(const char* name) {
  return nvtxDomainRegisterStringA(domain(), name);
}

// One API range, pushed as NCCL pushes it and popped when the call returns.
class ApiRange {
 public:
  ApiRange(nvtxStringHandle_t name, uint64_t schema = 0, const void* payload = nullptr,
           size_t size = 0)
      : on_(nvtxOn()) {
    if (!on_) return;
    nvtxEventAttributes_t a = {};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = name;
    nvtxPayloadData_t data = {kSchemaBase + schema, size, payload};
    if (payload != nullptr) {
      a.payloadType = NVTX_PAYLOAD_TYPE_EXT;
      a.reserved0 = 1;
      a.payload.ullValue = reinterpret_cast<uint64_t>(&data);
    }
    nvtxDomainRangePushEx(domain(), &a);
  }
  // ncclCommInitRank learns its hash inside the call and hands the payload over at the pop.
  void popWith(uint64_t schema, const void* payload, size_t size) {
    popData_ = {kSchemaBase + schema, size, payload};
    popPayload_ = true;
  }
  ~ApiRange() {
    if (!on_) return;
    if (popPayload_) {
      nvtxRangePopPayload(domain(), &popData_, 1);
    } else {
      nvtxDomainRangePop(domain());
    }
  }

 private:
  bool on_;
  bool popPayload_ = false;
  nvtxPayloadData_t popData_ = {};
};

size_t typeSize(ncclDataType_t t) {
  switch (t) {
    case ncclInt8:
    case ncclUint8:
    case ncclFloat8e4m3:
    case ncclFloat8e5m2:
      return 1;
    case ncclFloat16:
    case ncclBfloat16:
      return 2;
    case ncclInt32:
    case ncclUint32:
    case ncclFloat32:
      return 4;
    case ncclInt64:
    case ncclUint64:
    case ncclFloat64:
      return 8;
    default:
      return 0;
  }
}

ncclResult_t checkComm(ncclComm_t comm) {
  return comm == nullptr ? ncclInvalidArgument : ncclSuccess;
}

ncclResult_t peerCall(ncclDataType_t type, int peer, ncclComm_t comm) {
  ++g_calls;
  if (checkComm(comm) != ncclSuccess || typeSize(type) == 0) return ncclInvalidArgument;
  return peer < 0 || peer >= comm->nranks ? ncclInvalidArgument : ncclSuccess;
}

// The hash the fake reports for a unique id: any stable mix of its bytes will do.
uint64_t hashOfId(const ncclUniqueId& id) {
  uint64_t h = 1469598103934665603ull;
  for (char c : id.internal) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

}  // namespace

// ---- Test hooks: what reached the library ----
FAKE_EXPORT uint64_t fakeNcclCalls() {
  return g_calls.load();
}
FAKE_EXPORT uint64_t fakeNcclCommHash(ncclComm_t comm) {
  return comm != nullptr ? comm->hash : 0;
}
FAKE_EXPORT void fakeNcclSetLaunchHook(FakeNcclLaunchHook hook, void* context) {
  g_launchContext.store(context);
  g_launchHook.store(hook);
}

// ---- The NCCL API ----
FAKE_EXPORT ncclResult_t ncclGetVersion(int* version) {
  if (version == nullptr) return ncclInvalidArgument;
  *version = NCCL_VERSION_CODE;
  return ncclSuccess;
}

FAKE_EXPORT ncclResult_t ncclGetUniqueId(ncclUniqueId* id) {
  ++g_calls;
  if (id == nullptr) return ncclInvalidArgument;
  for (size_t i = 0; i < sizeof id->internal; ++i) id->internal[i] = static_cast<char>(i * 7 + 3);
  return ncclSuccess;
}

FAKE_EXPORT const char* ncclGetErrorString(ncclResult_t result) {
  return result == ncclSuccess ? "no error" : "fake NCCL error";
}

FAKE_EXPORT ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId commId,
                                          int rank) {
  static const nvtxStringHandle_t name = nameOf("ncclCommInitRank");
  ApiRange range(name);
  ++g_calls;
  if (comm == nullptr || nranks < 1 || rank < 0 || rank >= nranks) return ncclInvalidArgument;
  *comm = new ncclComm{nranks, rank, hashOfId(commId), 0};
  static thread_local InitPayload p;
  p = {(*comm)->hash, nranks, rank, 0};
  range.popWith(kSidInit, &p, sizeof p);
  return ncclSuccess;
}

FAKE_EXPORT ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t* newcomm,
                                       ncclConfig_t*) {
  static const nvtxStringHandle_t name = nameOf("ncclCommSplit");
  ++g_calls;
  if (checkComm(comm) != ncclSuccess || newcomm == nullptr) return ncclInvalidArgument;
  ++comm->splits;
  if (color == NCCL_SPLIT_NOCOLOR) {
    *newcomm = nullptr;
    return ncclSuccess;
  }
  // Two halves: even colors keep the lower ranks.
  const int half = (comm->nranks + 1) / 2;
  const int size = comm->rank < half ? half : comm->nranks - half;
  const int rank = comm->rank < half ? comm->rank : comm->rank - half;
  *newcomm = new ncclComm{size, rank, comm->hash * 31 + static_cast<uint64_t>(color), 0};
  SplitPayload p = {(*newcomm)->hash, comm->hash, size, rank, 0, color, key};
  ApiRange range(name, 0, &p, sizeof p);
  return ncclSuccess;
}

FAKE_EXPORT ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  static const nvtxStringHandle_t name = nameOf("ncclCommDestroy");
  ++g_calls;
  if (checkComm(comm) != ncclSuccess) return ncclInvalidArgument;
  InitPayload p = {comm->hash, comm->nranks, comm->rank, 0};
  ApiRange range(name, kSidInit, &p, sizeof p);
  delete comm;
  return ncclSuccess;
}

FAKE_EXPORT ncclResult_t ncclCommAbort(ncclComm_t comm) {
  ++g_calls;
  if (checkComm(comm) != ncclSuccess) return ncclInvalidArgument;
  delete comm;
  return ncclSuccess;
}

FAKE_EXPORT ncclResult_t ncclCommCount(const ncclComm_t comm, int* count) {
  if (checkComm(comm) != ncclSuccess || count == nullptr) return ncclInvalidArgument;
  *count = comm->nranks;
  return ncclSuccess;
}

FAKE_EXPORT ncclResult_t ncclCommUserRank(const ncclComm_t comm, int* rank) {
  if (checkComm(comm) != ncclSuccess || rank == nullptr) return ncclInvalidArgument;
  *rank = comm->rank;
  return ncclSuccess;
}

FAKE_EXPORT ncclResult_t ncclSend(const void*, size_t count, ncclDataType_t datatype, int peer,
                                  ncclComm_t comm, cudaStream_t stream) {
  static const nvtxStringHandle_t name = nameOf("ncclSend");
  SendRecvPayload p = {comm != nullptr ? comm->hash : 0, count * typeSize(datatype), peer};
  ApiRange range(name, kSidSend, &p, sizeof p);
  return launched(peerCall(datatype, peer, comm), kSendRecvKernel, stream);
}

FAKE_EXPORT ncclResult_t ncclRecv(void* recvbuff, size_t count, ncclDataType_t datatype, int peer,
                                  ncclComm_t comm, cudaStream_t stream) {
  static const nvtxStringHandle_t name = nameOf("ncclRecv");
  SendRecvPayload p = {comm != nullptr ? comm->hash : 0, count * typeSize(datatype), peer};
  ApiRange range(name, kSidRecv, &p, sizeof p);
  const ncclResult_t r = peerCall(datatype, peer, comm);
  if (r == ncclSuccess && recvbuff != nullptr)
    std::memset(recvbuff, peer, count * typeSize(datatype));
  return launched(r, kSendRecvKernel, stream);
}

FAKE_EXPORT ncclResult_t ncclAllReduce(const void* sendbuff, void* recvbuff, size_t count,
                                       ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                                       cudaStream_t stream) {
  static const nvtxStringHandle_t name = nameOf("ncclAllReduce");
  CollectivePayload p = {comm != nullptr ? comm->hash : 0, count * typeSize(datatype), op};
  ApiRange range(name, kSidAllReduce, &p, sizeof p);
  ++g_calls;
  if (checkComm(comm) != ncclSuccess || typeSize(datatype) == 0) return ncclInvalidArgument;
  if (sendbuff != nullptr && recvbuff != nullptr && sendbuff != recvbuff) {
    std::memcpy(recvbuff, sendbuff, count * typeSize(datatype));
  }
  return launched(ncclSuccess, kAllReduceKernel, stream);
}

FAKE_EXPORT ncclResult_t ncclAllGather(const void*, void*, size_t sendcount,
                                       ncclDataType_t datatype, ncclComm_t comm,
                                       cudaStream_t stream) {
  static const nvtxStringHandle_t name = nameOf("ncclAllGather");
  CollectivePayload p = {comm != nullptr ? comm->hash : 0, sendcount * typeSize(datatype), 0};
  ApiRange range(name, kSidAllGather, &p, sizeof p.comm + sizeof p.bytes);
  ++g_calls;
  return launched(checkComm(comm), kAllGatherKernel, stream);
}

FAKE_EXPORT ncclResult_t ncclReduceScatter(const void*, void*, size_t recvcount,
                                           ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                                           cudaStream_t stream) {
  static const nvtxStringHandle_t name = nameOf("ncclReduceScatter");
  CollectivePayload p = {comm != nullptr ? comm->hash : 0, recvcount * typeSize(datatype), op};
  ApiRange range(name, kSidReduceScatter, &p, sizeof p);
  ++g_calls;
  return launched(checkComm(comm), kReduceScatterKernel, stream);
}

FAKE_EXPORT ncclResult_t ncclBroadcast(const void*, void*, size_t count, ncclDataType_t datatype,
                                       int root, ncclComm_t comm, cudaStream_t stream) {
  static const nvtxStringHandle_t name = nameOf("ncclBroadcast");
  RootedPayload p = {comm != nullptr ? comm->hash : 0, count * typeSize(datatype), root, 0};
  ApiRange range(name, kSidBroadcast, &p, sizeof p.comm + sizeof p.bytes + sizeof p.root);
  ++g_calls;
  if (checkComm(comm) != ncclSuccess) return ncclInvalidArgument;
  return launched(root < 0 || root >= comm->nranks ? ncclInvalidArgument : ncclSuccess,
                  kBroadcastKernel, stream);
}

FAKE_EXPORT ncclResult_t ncclReduce(const void*, void*, size_t count, ncclDataType_t datatype,
                                    ncclRedOp_t op, int root, ncclComm_t comm,
                                    cudaStream_t stream) {
  static const nvtxStringHandle_t name = nameOf("ncclReduce");
  RootedPayload p = {comm != nullptr ? comm->hash : 0, count * typeSize(datatype), root, op};
  ApiRange range(name, kSidReduce, &p, sizeof p);
  ++g_calls;
  if (checkComm(comm) != ncclSuccess) return ncclInvalidArgument;
  return launched(root < 0 || root >= comm->nranks ? ncclInvalidArgument : ncclSuccess,
                  kReduceKernel, stream);
}

FAKE_EXPORT ncclResult_t ncclGroupStart() {
  static const nvtxStringHandle_t name = nameOf("ncclGroupStart");
  ApiRange range(name);
  ++g_calls;
  ++t_groupDepth;
  return ncclSuccess;
}

FAKE_EXPORT ncclResult_t ncclGroupEnd() {
  static const nvtxStringHandle_t name = nameOf("ncclGroupEnd");
  ApiRange range(name);
  ++g_calls;
  if (t_groupDepth == 0) return ncclInvalidUsage;  // as NCCL: an End without a Start
  if (--t_groupDepth == 0 && t_groupKernel != nullptr) {
    const char* kernel = t_groupKernel;
    t_groupKernel = nullptr;
    runLaunchHook(kernel, t_groupStream);
  }
  return ncclSuccess;
}
