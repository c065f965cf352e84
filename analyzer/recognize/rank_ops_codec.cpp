#include "analyzer/recognize/rank_ops_codec.h"

#include <stdexcept>
#include <string>

namespace bubblescope::analysis {
namespace {

// The columns of RankOps, in one order for both directions.
template <typename R, typename F>
void forEachColumn(R& o, F&& f) {
  f(o.ops), f(o.comms), f(o.steps), f(o.optimizer), f(o.gradSync), f(o.otherBusy);
  f(o.hostActivity), f(o.hostActivityName), f(o.computeKernels), f(o.commKernels);
  f(o.opKernels), f(o.opHosts), f(o.commLaunches);
  f(o.commCalls), f(o.otherKernels), f(o.kernelsForMemory);
}

}  // namespace

void encodeRankOps(const RankOps& ops, traces::ByteWriter& out) {
  out.text(ops.ruleSet);
  out.value(ops.mbInferred);
  out.value(ops.stageFromLabels.has_value());
  out.value(ops.stageFromLabels.value_or(0));
  out.value(ops.hasKernels);
  out.value<uint64_t>(ops.hostNames.size());
  for (const std::string& n : ops.hostNames) out.text(n);
  forEachColumn(ops, [&](const auto& column) { out.column(column); });
}

RankOps decodeRankOps(traces::ByteReader& in) {
  RankOps ops;
  ops.ruleSet = in.text();
  ops.mbInferred = in.value<bool>();
  const bool labelled = in.value<bool>();
  const int stage = in.value<int>();
  if (labelled) ops.stageFromLabels = stage;
  ops.hasKernels = in.value<bool>();
  for (auto n = in.value<uint64_t>(); n > 0; --n) ops.hostNames.push_back(in.text());
  forEachColumn(ops, [&](auto& column) { in.column(column); });
  // What is kept beside the ops and comms is one per record or none (rank_order.h).
  const auto beside = [](size_t kept, size_t records, const char* what) {
    if (kept != 0 && kept != records) {
      throw std::runtime_error("recognised ops: " + std::to_string(kept) + " " + what + " for " +
                               std::to_string(records));
    }
  };
  beside(ops.opKernels.size(), ops.ops.size(), "ops' kernels");
  beside(ops.opHosts.size(), ops.ops.size(), "ops' host ranges");
  beside(ops.commLaunches.size(), ops.comms.size(), "comms' launches");
  return ops;
}

}  // namespace bubblescope::analysis
