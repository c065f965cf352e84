#include "analyzer/replicas/replica_package.h"

#include <algorithm>
#include <stdexcept>

#include "analyzer/pipeline/clock_align.h"

namespace bubblescope::analysis {

ReplicaPackage replicaFrame(const Topology& topo, size_t replica, const PipelineOptions& options) {
  ReplicaPackage p;
  p.dpRank = topo.dpRanks.at(replica);
  p.pp = topo.pp;
  for (const std::vector<size_t>& stage : topo.ranksOf.at(replica)) {
    if (stage.size() != 1) {
      throw std::invalid_argument("a stage of several ranks (a TP group) is built where they are");
    }
    p.ranks.push_back(static_cast<uint32_t>(stage.front()));
  }
  p.alignClocks = options.alignClocks;
  p.firstStep = options.firstStep;
  p.lastStep = options.lastStep;
  p.commKernels.resize(p.ranks.size());
  return p;
}

ReplicaPackage packageReplica(const Topology& topo, size_t replica, const CommMatches& comms,
                              const std::vector<RankOps>& light, const PipelineOptions& options) {
  ReplicaPackage p = replicaFrame(topo, replica, options);
  p.offsetsApplied = !options.appliedOffsets.empty();
  for (size_t i = 0; i < p.ranks.size(); ++i) {
    if (p.offsetsApplied) p.offsets.push_back(options.appliedOffsets.at(p.ranks[i]));
    p.commKernels[i] = light.at(p.ranks[i]).commKernels;
  }
  // A sorted copy of the ranks, to keep the matches in the job's order.
  std::vector<uint32_t> mine = p.ranks;
  std::sort(mine.begin(), mine.end());
  auto held = [&](const KernelRef& k) {
    return std::binary_search(mine.begin(), mine.end(), k.rank);
  };
  for (const P2pMatch& m : comms.p2p) {
    if (held(m.sendKernel) || held(m.recvKernel)) p.p2p.push_back(m);
  }
  return p;
}

void encodeReplicaPackage(const ReplicaPackage& p, traces::ByteWriter& out) {
  out.value(p.dpRank);
  out.value(p.pp);
  out.column(p.ranks);
  out.value(p.alignClocks);
  out.value(p.firstStep);
  out.value(p.lastStep);
  out.value(p.offsetsApplied);
  out.column(p.offsets);
  out.value<uint64_t>(p.commKernels.size());
  for (const auto& k : p.commKernels) out.column(k);
  out.column(p.p2p);
}

ReplicaPackage decodeReplicaPackage(traces::ByteReader& in) {
  ReplicaPackage p;
  p.dpRank = in.value<int>();
  p.pp = in.value<int>();
  in.column(p.ranks);
  p.alignClocks = in.value<bool>();
  p.firstStep = in.value<int64_t>();
  p.lastStep = in.value<int64_t>();
  p.offsetsApplied = in.value<bool>();
  in.column(p.offsets);
  p.commKernels.resize(in.count(sizeof(uint64_t)));
  for (auto& k : p.commKernels) in.column(k);
  in.column(p.p2p);
  if (p.ranks.size() != static_cast<size_t>(std::max(p.pp, 0)) ||
      p.commKernels.size() != p.ranks.size() ||
      (p.offsetsApplied && p.offsets.size() != p.ranks.size())) {
    throw std::runtime_error("a replica's package whose ranks and stages disagree");
  }
  return p;
}

PipelineTrace buildOwnedReplica(const ReplicaPackage& package, std::vector<RankOps>& ops) {
  Topology topo;
  topo.pp = package.pp;
  topo.dpRanks = {package.dpRank};
  topo.ranksOf.emplace_back();
  PipelineOptions options;
  options.alignClocks = package.alignClocks;
  options.firstStep = package.firstStep;
  options.lastStep = package.lastStep;
  if (package.offsetsApplied) options.appliedOffsets.assign(ops.size(), 0);
  for (size_t i = 0; i < package.ranks.size(); ++i) {
    const uint32_t r = package.ranks[i];
    if (r >= ops.size()) throw std::invalid_argument("a replica's rank outside the run");
    topo.ranksOf.back().push_back({r});
    // As the process that matched the comms shifted every rank's ops before splitting them: the
    // NCCL kernels it split replace the rank's own, which the shift moved alike.
    if (package.offsetsApplied) {
      shiftTimes(ops[r], package.offsets[i]);
      options.appliedOffsets[r] = package.offsets[i];
    }
    ops[r].commKernels = package.commKernels[i];
  }
  CommMatches comms;
  comms.p2p = package.p2p;
  options.comms = &comms;
  return buildPipeline(topo, 0, ops, options);
}

}  // namespace bubblescope::analysis
