#include "tests/analyzer/comm/collective_run.h"

#include <string>

namespace bubblescope::testing {

traces::Run collectiveRun(const CollectiveRunSpec& spec) {
  constexpr uint64_t kComm = 0xa11;
  constexpr TimeNs kMs = kCollectiveMs;
  traces::Run run;
  run.dir = "partial";
  for (int r = 0; r < spec.traced; ++r) {
    traces::RankTrace& t = run.ranks.emplace_back();
    t.file = "partial/rank-" + std::to_string(r) + ".sqlite";
    t.meta.rank = r;
    t.meta.worldSize = spec.world;
    const traces::StreamIndex compute = t.streamIndex(0, 7), nccl = t.streamIndex(0, 13);
    const traces::StringId gemm = t.strings.intern("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n");
    const traces::StringId allReduce = t.strings.intern(
        "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)");
    for (int c = 0; c < spec.calls; ++c) {
      const TimeNs at = c * 100 * kMs;
      t.kernels->start.push_back(at);
      t.kernels->end.push_back(at + 10 * kMs);
      t.kernels->stream.push_back(compute);
      t.kernels->name.push_back(gemm);
      t.kernels->correlation.push_back(0);

      traces::NcclCall call;
      call.op = traces::NcclOp::AllReduce;
      call.comm = kComm;
      call.commRank = r;
      call.commSize = spec.commSize;
      call.count = 1 << 20;
      call.bytes = 2 << 20;
      call.dtype = 9;  // bfloat16
      call.seq = static_cast<uint64_t>(c) + 1;
      call.start = at + 10 * kMs;
      call.end = call.start + kMs / 10;
      call.thread = t.threadIndex(100);
      call.id = 1000 + static_cast<uint64_t>(c);
      t.ncclCalls->push(call);

      const uint32_t correlation = 1 + static_cast<uint32_t>(c);
      t.correlations->correlation.push_back(correlation);
      t.correlations->externalKind.push_back(traces::ExternalKind::NcclCall);
      t.correlations->externalId.push_back(call.id);
      t.kernels->start.push_back(at + (10 + 4 * r) * kMs);
      t.kernels->end.push_back(at + 20 * kMs);
      t.kernels->stream.push_back(nccl);
      t.kernels->name.push_back(allReduce);
      t.kernels->correlation.push_back(correlation);
    }
  }
  return run;
}

}  // namespace bubblescope::testing
