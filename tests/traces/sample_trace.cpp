#include "tests/traces/sample_trace.h"

namespace bubblescope::testing {

using namespace traces;

RankTrace sampleTrace(int rank, int worldSize) {
  RankTrace t;
  t.meta.source = "test";
  t.meta.runId = "run-42";
  t.meta.rank = rank;
  t.meta.localRank = rank % 8;
  t.meta.worldSize = worldSize;
  t.meta.host = "node-a";
  t.meta.pid = 4000 + rank;
  t.meta.command = "python train.py --pp 4";
  t.meta.agentVersion = "0.1.0";
  t.meta.startNs = 1'700'000'000'000'000'000;
  t.meta.cudaCapture = true;
  t.meta.clockAnchors = {{1'700'000'000'000'000'000, 5'000'000, 1'700'000'000'000'000'100}};
  t.meta.captureWindows = {{1'700'000'000'000'000'000, 1'700'000'000'900'000'000, "record"}};
  t.meta.dropped = {{"nvtx", 3}, {"cupti", 0}};
  t.meta.extra = {{"BUBBLESCOPE_PP_SIZE", "4"}};

  const TimeNs t0 = t.meta.startNs;
  const ThreadIndex main = t.threadIndex(111);
  const ThreadIndex comm = t.threadIndex(222);
  t.threads[main].name = t.strings.intern("stage main");
  t.threads[comm].name = t.strings.intern("stage send");
  t.devices.push_back({0, t.strings.intern("NVIDIA H100"), "GPU-1234"});
  const StreamIndex compute = t.streamIndex(0, 7);
  const StreamIndex nccl = t.streamIndex(0, 13);
  t.streams[compute].name = t.strings.intern("compute");

  const StringId dflt = t.strings.intern("");
  const StringId ncclDomain = t.strings.intern("NCCL");
  // Ranges deliberately out of order to exercise sorting on read.
  auto range = [&](TimeNs s, TimeNs e, ThreadIndex th, StringId dom, const char* name,
                   uint16_t depth) {
    t.ranges->start.push_back(t0 + s);
    t.ranges->end.push_back(t0 + e);
    t.ranges->thread.push_back(th);
    t.ranges->domain.push_back(dom);
    t.ranges->name.push_back(t.strings.intern(name));
    t.ranges->depth.push_back(depth);
    t.ranges->kind.push_back(RangeKind::PushPop);
  };
  range(1000, 2000, main, dflt, "F mb=1", 1);
  range(0, 10000, main, dflt, "step 0", 0);
  range(100, 900, main, dflt, "F mb=0", 1);
  range(950, 990, comm, ncclDomain, "ncclSend", 0);

  t.marks->start.push_back(t0 + 50);
  t.marks->thread.push_back(main);
  t.marks->domain.push_back(dflt);
  t.marks->name.push_back(t.strings.intern("checkpoint"));

  for (int i = 0; i < 3; ++i) {
    t.kernels->start.push_back(t0 + 200 + i * 200);
    t.kernels->end.push_back(t0 + 350 + i * 200);
    t.kernels->stream.push_back(compute);
    t.kernels->name.push_back(t.strings.intern("ampere_sgemm_128x64_nn"));
    t.kernels->correlation.push_back(10 + i);
  }
  t.kernels->start.push_back(t0 + 960);
  t.kernels->end.push_back(t0 + 1500);
  t.kernels->stream.push_back(nccl);
  t.kernels->name.push_back(
      t.strings.intern("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)"));
  t.kernels->correlation.push_back(20);

  t.memcpys->start.push_back(t0 + 20);
  t.memcpys->end.push_back(t0 + 80);
  t.memcpys->stream.push_back(compute);
  t.memcpys->correlation.push_back(5);
  t.memcpys->bytes.push_back(1 << 20);
  t.memcpys->copyKind.push_back(MemcpyKind::HostToDevice);

  t.memsets->start.push_back(t0 + 90);
  t.memsets->end.push_back(t0 + 95);
  t.memsets->stream.push_back(compute);
  t.memsets->correlation.push_back(6);
  t.memsets->bytes.push_back(4096);

  t.syncs->start.push_back(t0 + 9000);
  t.syncs->end.push_back(t0 + 9500);
  t.syncs->stream.push_back(kNoStream);
  t.syncs->correlation.push_back(30);
  t.syncs->syncKind.push_back(SyncKind::ContextSynchronize);

  for (int i = 0; i < 3; ++i) {
    t.apiCalls->start.push_back(t0 + 150 + i * 200);
    t.apiCalls->end.push_back(t0 + 160 + i * 200);
    t.apiCalls->thread.push_back(main);
    t.apiCalls->name.push_back(t.strings.intern("cudaLaunchKernel"));
    t.apiCalls->correlation.push_back(10 + i);
  }

  auto& n = *t.ncclCalls;
  n.start.push_back(t0 + 950);
  n.end.push_back(t0 + 990);
  n.thread.push_back(comm);
  n.op.push_back(NcclOp::Send);
  n.peer.push_back(rank + 1);
  n.count.push_back(1024);
  n.dtype.push_back(7);
  n.bytes.push_back(2048);
  n.comm.push_back(0xfedcba9876543210ull);  // above INT64_MAX: must survive SQLite's int64
  n.commRank.push_back(rank);
  n.commSize.push_back(worldSize);
  n.streamHandle.push_back(0x7f0000001000ull);
  n.groupDepth.push_back(1);
  n.seq.push_back(17);
  n.id.push_back(9001);
  n.source.push_back(NcclSource::Hook);

  t.correlations->correlation.push_back(20);
  t.correlations->externalKind.push_back(ExternalKind::NcclCall);
  t.correlations->externalId.push_back(9001);
  return t;
}

}  // namespace bubblescope::testing
