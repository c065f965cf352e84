// The NCCL API as the agent exports it (LD_PRELOAD puts these before libnccl's): each wrapper
// records the call (op, peer or root, count, type, bytes, communicator, stream, group nesting,
// sequence number, host start and end), ties the CUDA work it launches to its id through
// CUPTI's external correlation, and forwards to the real function. Costs a few tens of ns on top
// of NCCL: a thread-local, a lock-free table lookup, two clock reads, one ring append.
// A call made while inside another (NCCL calling its own API) is forwarded untouched.
#include <nccl.h>

#include "agent/core/clock.h"
#include "agent/core/producer.h"
#include "agent/cupti/cuda_capture.h"
#include "agent/nccl/comm_hash.h"
#include "agent/nccl/comm_table.h"
#include "agent/nccl/nccl_calls.h"
#include "agent/nccl/nccl_real.h"
#include "agent/nccl/recent_calls.h"

#define BUBBLESCOPE_NCCL_EXPORT extern "C" __attribute__((visibility("default")))

namespace bubblescope::agent {
namespace {

using traces::NcclOp;

RealNccl<decltype(&pncclCommUserRank)> g_userRank("ncclCommUserRank");
RealNccl<decltype(&pncclCommCount)> g_count("ncclCommCount");

// The call as NCCL was given it: handles, before the communicator table names them.
struct Call {
  NcclOp op;
  const void* comm = nullptr;  // ncclComm_t
  int32_t peer = -1;
  uint64_t count = 0;
  int dtype = 0;
  const void* stream = nullptr;
};

// Rank and size of a communicator NCCL made for us (a split): asked once it is ready.
void learnRank(const void* comm, CommInfo& info) {
  auto userRank = g_userRank.get();
  auto count = g_count.get();
  int rank = -1, size = -1;
  auto c = static_cast<ncclComm_t>(const_cast<void*>(comm));
  if (userRank != nullptr && count != nullptr && userRank(c, &rank) == ncclSuccess &&
      count(c, &size) == ncclSuccess) {
    info.rank.store(rank, std::memory_order_relaxed);
    info.size.store(size, std::memory_order_relaxed);
  }
}

// What the call says, as its record and the live history both keep it.
traces::NcclCallFields fieldsOf(const Call& c, CommInfo* info) {
  traces::NcclCallFields f;
  f.op = c.op;
  f.peer = c.peer;
  f.count = c.count;
  f.dtype = static_cast<uint8_t>(c.dtype);
  // A GroupEnd's count is the calls of its group: it moves no bytes itself.
  f.bytes = traces::movesData(c.op) ? c.count * ncclTypeSize(c.dtype) : 0;
  if (info != nullptr) {
    if (info->size.load(std::memory_order_relaxed) < 0) learnRank(c.comm, *info);
    f.comm = info->hash.load(std::memory_order_relaxed);
    f.commRank = info->rank.load(std::memory_order_relaxed);
    f.commSize = info->size.load(std::memory_order_relaxed);
  }
  return f;
}

void record(const Call& c, uint64_t id, uint64_t seq, uint64_t start, uint64_t end,
            uint8_t groupDepth, CommInfo* info) {
  NcclCallPayload p;
  p.fields() = fieldsOf(c, info);
  p.seq = seq;
  p.groupDepth = groupDepth;
  p.id = id;
  p.start = start;
  p.end = end;
  p.stream = reinterpret_cast<uint64_t>(c.stream);
  append(Source::Nccl, g_ncclTypes.call, p);
}

// The call as the live `hang` query's history keeps it.
RecentCall recentCall(NcclThread& t, const Call& c, CommInfo* info, uint64_t start) {
  RecentCall rc;
  rc.fields() = fieldsOf(c, info);
  rc.startTicks = start;
  rc.tid = osThreadId(t);
  return rc;
}

// The common path of every communication call.
template <class Fn, class... Args>
ncclResult_t communicate(RealNccl<Fn>& real, const Call& c, Args... args) {
  Fn fn = real.get();
  if (__builtin_expect(fn == nullptr, 0)) {
    reportMissingNccl(real.name());
    return ncclSystemError;
  }
  NcclThread& t = ncclThread();
  if (t.inHook != 0) return fn(args...);
  ++t.inHook;
  CommInfo* info = commTable().find(c.comm);
  const int cls = seqClassOf(c.op);
  const uint64_t seq = info != nullptr && cls >= 0 ? info->next(static_cast<SeqClass>(cls)) : 0;
  const uint64_t id = nextCallId(t);
  const bool recording = recordingNow();
  const bool traced = cudaTracing();
  const uint64_t start = nowTicks();
  const uint64_t noted = noteCallStart(recentCall(t, c, info, start), seq);
  if (traced) pushCudaExternalId(ExternalIdKind::NcclCall, id);
  const ncclResult_t r = fn(args...);
  if (traced) popCudaExternalId(ExternalIdKind::NcclCall);
  const uint64_t end = nowTicks();
  noteCallEnd(noted, end);
  --t.inHook;
  if (recording) record(c, id, seq, start, end, static_cast<uint8_t>(t.groupDepth), info);
  return r;
}

template <class Fn>
Fn realOrNull(RealNccl<Fn>& real) {
  Fn fn = real.get();
  if (fn == nullptr) reportMissingNccl(real.name());
  return fn;
}

RealNccl<decltype(&pncclSend)> g_send("ncclSend");
RealNccl<decltype(&pncclRecv)> g_recv("ncclRecv");
RealNccl<decltype(&pncclAllReduce)> g_allReduce("ncclAllReduce");
RealNccl<decltype(&pncclAllGather)> g_allGather("ncclAllGather");
RealNccl<decltype(&pncclReduceScatter)> g_reduceScatter("ncclReduceScatter");
RealNccl<decltype(&pncclBroadcast)> g_broadcast("ncclBroadcast");
RealNccl<decltype(&pncclReduce)> g_reduce("ncclReduce");
RealNccl<decltype(&pncclAlltoAll)> g_alltoAll("ncclAlltoAll");
RealNccl<decltype(&pncclGroupStart)> g_groupStart("ncclGroupStart");
RealNccl<decltype(&pncclGroupEnd)> g_groupEnd("ncclGroupEnd");
RealNccl<decltype(&pncclCommInitRank)> g_initRank("ncclCommInitRank");
RealNccl<decltype(&pncclCommInitRankConfig)> g_initRankConfig("ncclCommInitRankConfig");
RealNccl<decltype(&pncclCommInitAll)> g_initAll("ncclCommInitAll");
RealNccl<decltype(&pncclCommSplit)> g_split("ncclCommSplit");
RealNccl<decltype(&pncclCommDestroy)> g_destroy("ncclCommDestroy");
RealNccl<decltype(&pncclCommAbort)> g_abort("ncclCommAbort");

// A call that makes or ends communicators: recorded, but with no sequence number or kernels.
template <class Body>
ncclResult_t manage(NcclOp op, Body body) {
  NcclThread& t = ncclThread();
  if (t.inHook != 0) return body(nullptr);
  ++t.inHook;
  const uint64_t id = nextCallId(t);
  const bool recording = recordingNow();
  const uint64_t start = nowTicks();
  Call c{op};
  const ncclResult_t r = body(&c);
  const uint64_t end = nowTicks();
  --t.inHook;
  if (recording) {
    record(c, id, 0, start, end, static_cast<uint8_t>(t.groupDepth), commTable().find(c.comm));
  }
  return r;
}

// Ends a communicator (destroy or abort): the row is recorded before the table entry goes, so
// it keeps the communicator's hash.
ncclResult_t endComm(decltype(&pncclCommDestroy) fn, ncclComm_t comm) {
  NcclThread& t = ncclThread();
  if (t.inHook != 0) return fn(comm);
  const bool recording = recordingNow();
  Call c{NcclOp::CommDestroy, comm};
  const uint64_t id = nextCallId(t);
  const uint64_t start = nowTicks();
  ++t.inHook;
  const ncclResult_t r = fn(comm);
  --t.inHook;
  const uint64_t end = nowTicks();
  if (recording) record(c, id, 0, start, end, 0, commTable().find(comm));
  commTable().erase(comm);
  return r;
}

ncclResult_t initRank(ncclComm_t* comm, int nranks, const ncclUniqueId& commId, int rank,
                      ncclConfig_t* config, bool withConfig) {
  auto fn = withConfig ? nullptr : realOrNull(g_initRank);
  auto fnConfig = withConfig ? realOrNull(g_initRankConfig) : nullptr;
  if (fn == nullptr && fnConfig == nullptr) return ncclSystemError;
  return manage(NcclOp::CommInitRank, [&](Call* c) {
    const ncclResult_t r =
        withConfig ? fnConfig(comm, nranks, commId, rank, config) : fn(comm, nranks, commId, rank);
    if (c != nullptr && comm != nullptr && *comm != nullptr &&
        (r == ncclSuccess || r == ncclInProgress)) {
      commTable().insert(*comm, commHashOfUniqueId(commId.internal, sizeof commId.internal), rank,
                         nranks);
      c->comm = *comm;
    }
    return r;
  });
}

}  // namespace
}  // namespace bubblescope::agent

using bubblescope::agent::Call;
using bubblescope::agent::communicate;
using bubblescope::traces::NcclOp;
namespace agent = bubblescope::agent;

BUBBLESCOPE_NCCL_EXPORT ncclResult_t ncclSend(const void* sendbuff, size_t count,
                                              ncclDataType_t datatype, int peer, ncclComm_t comm,
                                              cudaStream_t stream) {
  return communicate(agent::g_send, Call{NcclOp::Send, comm, peer, count, datatype, stream},
                     sendbuff, count, datatype, peer, comm, stream);
}

BUBBLESCOPE_NCCL_EXPORT ncclResult_t ncclRecv(void* recvbuff, size_t count, ncclDataType_t datatype,
                                              int peer, ncclComm_t comm, cudaStream_t stream) {
  return communicate(agent::g_recv, Call{NcclOp::Recv, comm, peer, count, datatype, stream},
                     recvbuff, count, datatype, peer, comm, stream);
}

BUBBLESCOPE_NCCL_EXPORT ncclResult_t ncclAllReduce(const void* sendbuff, void* recvbuff,
                                                   size_t count, ncclDataType_t datatype,
                                                   ncclRedOp_t op, ncclComm_t comm,
                                                   cudaStream_t stream) {
  return communicate(agent::g_allReduce, Call{NcclOp::AllReduce, comm, -1, count, datatype, stream},
                     sendbuff, recvbuff, count, datatype, op, comm, stream);
}

BUBBLESCOPE_NCCL_EXPORT ncclResult_t ncclAllGather(const void* sendbuff, void* recvbuff,
                                                   size_t sendcount, ncclDataType_t datatype,
                                                   ncclComm_t comm, cudaStream_t stream) {
  return communicate(agent::g_allGather,
                     Call{NcclOp::AllGather, comm, -1, sendcount, datatype, stream}, sendbuff,
                     recvbuff, sendcount, datatype, comm, stream);
}

BUBBLESCOPE_NCCL_EXPORT ncclResult_t ncclReduceScatter(const void* sendbuff, void* recvbuff,
                                                       size_t recvcount, ncclDataType_t datatype,
                                                       ncclRedOp_t op, ncclComm_t comm,
                                                       cudaStream_t stream) {
  return communicate(agent::g_reduceScatter,
                     Call{NcclOp::ReduceScatter, comm, -1, recvcount, datatype, stream}, sendbuff,
                     recvbuff, recvcount, datatype, op, comm, stream);
}

BUBBLESCOPE_NCCL_EXPORT ncclResult_t ncclBroadcast(const void* sendbuff, void* recvbuff,
                                                   size_t count, ncclDataType_t datatype, int root,
                                                   ncclComm_t comm, cudaStream_t stream) {
  return communicate(agent::g_broadcast,
                     Call{NcclOp::Broadcast, comm, root, count, datatype, stream}, sendbuff,
                     recvbuff, count, datatype, root, comm, stream);
}

BUBBLESCOPE_NCCL_EXPORT ncclResult_t ncclReduce(const void* sendbuff, void* recvbuff, size_t count,
                                                ncclDataType_t datatype, ncclRedOp_t op, int root,
                                                ncclComm_t comm, cudaStream_t stream) {
  return communicate(agent::g_reduce, Call{NcclOp::Reduce, comm, root, count, datatype, stream},
                     sendbuff, recvbuff, count, datatype, op, root, comm, stream);
}

BUBBLESCOPE_NCCL_EXPORT ncclResult_t ncclAlltoAll(const void* sendbuff, void* recvbuff,
                                                  size_t count, ncclDataType_t datatype,
                                                  ncclComm_t comm, cudaStream_t stream) {
  return communicate(agent::g_alltoAll, Call{NcclOp::AllToAll, comm, -1, count, datatype, stream},
                     sendbuff, recvbuff, count, datatype, comm, stream);
}

BUBBLESCOPE_NCCL_EXPORT ncclResult_t ncclGroupStart() {
  auto fn = agent::realOrNull(agent::g_groupStart);
  if (fn == nullptr) return ncclSystemError;
  agent::NcclThread& t = agent::ncclThread();
  if (t.inHook != 0) return fn();
  const bool recording = agent::recordingNow();
  const uint64_t id = agent::openGroup(t);
  const uint64_t start = agent::nowTicks();
  ++t.inHook;
  const ncclResult_t r = fn();
  --t.inHook;
  const uint64_t end = agent::nowTicks();
  if (recording) {
    agent::record(Call{NcclOp::GroupStart}, id, 0, start, end, static_cast<uint8_t>(t.groupDepth),
                  nullptr);
  }
  return r;
}

BUBBLESCOPE_NCCL_EXPORT ncclResult_t ncclGroupEnd() {
  auto fn = agent::realOrNull(agent::g_groupEnd);
  if (fn == nullptr) return ncclSystemError;
  agent::NcclThread& t = agent::ncclThread();
  if (t.inHook != 0) return fn();
  const bool recording = agent::recordingNow();
  const uint8_t depth = static_cast<uint8_t>(t.groupDepth);
  const uint32_t covered = t.groupDepth == 1 ? t.groupNext : 0;
  const uint64_t id = agent::groupEndId(t);
  const bool traced = agent::cudaTracing();
  const uint64_t start = agent::nowTicks();
  ++t.inHook;
  // The group's kernels launch here: they are tied to the GroupEnd's id (the group's block).
  if (traced) agent::pushCudaExternalId(agent::ExternalIdKind::NcclCall, id);
  const ncclResult_t r = fn();
  if (traced) agent::popCudaExternalId(agent::ExternalIdKind::NcclCall);
  --t.inHook;
  const uint64_t end = agent::nowTicks();
  agent::closeGroup(t);
  if (recording) {
    Call c{NcclOp::GroupEnd};
    c.count = covered;
    agent::record(c, id, 0, start, end, depth, nullptr);
  }
  return r;
}

BUBBLESCOPE_NCCL_EXPORT ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks,
                                                      ncclUniqueId commId, int rank) {
  return agent::initRank(comm, nranks, commId, rank, nullptr, false);
}

BUBBLESCOPE_NCCL_EXPORT ncclResult_t ncclCommInitRankConfig(ncclComm_t* comm, int nranks,
                                                            ncclUniqueId commId, int rank,
                                                            ncclConfig_t* config) {
  return agent::initRank(comm, nranks, commId, rank, config, true);
}

BUBBLESCOPE_NCCL_EXPORT ncclResult_t ncclCommInitAll(ncclComm_t* comms, int ndev,
                                                     const int* devlist) {
  auto fn = agent::realOrNull(agent::g_initAll);
  if (fn == nullptr) return ncclSystemError;
  return agent::manage(NcclOp::CommInitRank, [&](Call* c) {
    const ncclResult_t r = fn(comms, ndev, devlist);
    if (c != nullptr && r == ncclSuccess && comms != nullptr && ndev > 0) {
      // NCCL makes the unique id itself: the communicators of this one process share a hash
      // of their first handle, which no other process sees.
      const uint64_t hash = agent::commHashOfUniqueId(&comms[0], sizeof comms[0]);
      for (int i = 0; i < ndev; ++i) agent::commTable().insert(comms[i], hash, i, ndev);
      c->comm = comms[0];
    }
    return r;
  });
}

BUBBLESCOPE_NCCL_EXPORT ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key,
                                                   ncclComm_t* newcomm, ncclConfig_t* config) {
  auto fn = agent::realOrNull(agent::g_split);
  if (fn == nullptr) return ncclSystemError;
  return agent::manage(NcclOp::CommSplit, [&](Call* c) {
    agent::CommInfo* parent = agent::commTable().find(comm);
    // NCCL counts every split of the parent, with or without a color, into the child's hash.
    const int splitCount =
        parent != nullptr ? parent->splits.fetch_add(1, std::memory_order_relaxed) + 1 : 0;
    const ncclResult_t r = fn(comm, color, key, newcomm, config);
    if (c == nullptr) return r;
    c->peer = -1;
    if ((r == ncclSuccess || r == ncclInProgress) && newcomm != nullptr && *newcomm != nullptr &&
        parent != nullptr && color != NCCL_SPLIT_NOCOLOR) {
      const uint64_t hash =
          agent::commHashOfSplit(parent->hash.load(std::memory_order_relaxed), splitCount, color);
      agent::commTable().insert(*newcomm, hash, -1, -1);
      c->comm = *newcomm;
    } else {
      c->comm = comm;  // no new communicator here: the row names the parent
    }
    return r;
  });
}

BUBBLESCOPE_NCCL_EXPORT ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  auto fn = agent::realOrNull(agent::g_destroy);
  if (fn == nullptr) return ncclSystemError;
  return agent::endComm(fn, comm);
}

BUBBLESCOPE_NCCL_EXPORT ncclResult_t ncclCommAbort(ncclComm_t comm) {
  auto fn = agent::realOrNull(agent::g_abort);
  if (fn == nullptr) return ncclSystemError;
  return agent::endComm(fn, comm);
}
